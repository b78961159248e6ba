import { strict as assert } from 'node:assert';
import { SpanStatusCode } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { Analyzer } from '../../../analyzer/analyzer.js';
import { TracePublisher } from '../../../outputs/traces/exporter.js';
import { parseAttemptLine } from '../../../collector/journal/format.js';
import { resolveModel } from '../../../sidecar/files.js';

describe('trace publisher', () => {
  it('one shadow.attempt span per attempt with the projected loop as children; errors only where observed', async () => {
    const exporter = new InMemorySpanExporter();
    const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
    const model = resolveModel('hypershift-hostedcluster');
    const analyzer = new Analyzer([model]);
    analyzer.listen(new TracePublisher(provider.getTracer('test')));
    const ops = model.operations.filter((o) => o.only !== 'phased').map((o) => o.name);
    const operations = ops
      .slice(0, ops.indexOf('SSHKeySync') + 1)
      .map((name) =>
        name === 'SSHKeySync'
          ? { name, outcome: 'error', error: 'failed to get hostedcluster SSHKey secret clusters/alpha-ssh: not found', durationSeconds: 0.5 }
          : { name, outcome: 'ok' },
      );
    const line = JSON.stringify({
      time: '2026-11-29T10:00:00Z',
      controller: 'hostedcluster',
      object: 'clusters/alpha',
      generation: 3,
      model: 'sequential',
      operations,
    });
    const parsed = parseAttemptLine(line, 1, { file: 'j' });
    assert.ok(parsed.ok);
    analyzer.attempt({ ...parsed.record, origin: { source: 'otlp', traceId: '0af7651916cd43dd8448eb211c80319c', spanId: 'b7ad6b7169203331' } });
    await provider.forceFlush();
    const spans = exporter.getFinishedSpans();
    const root = spans.find((s) => s.name === 'shadow.attempt')!;
    assert.equal(root.attributes['reconcile.object'], 'clusters/alpha');
    assert.equal(root.attributes['reconcile.projected_loop'], 'phased');
    assert.equal(root.attributes['reconcile.diverged'], true);
    assert.equal((root.attributes['reconcile.unblocked'] as string[]).length, 27);
    assert.deepEqual(
      root.links.map((l) => l.context.spanId),
      ['b7ad6b7169203331'],
    );
    assert.equal(root.startTime[0], Date.parse('2026-11-29T10:00:00Z') / 1000);
    const children = spans.filter((s) => s !== root);
    assert.equal(children.length, model.phased.flatMap((s) => (s.kind === 'op' ? [s.op] : s.ops)).length);
    const errored = children.filter((s) => s.status.code === SpanStatusCode.ERROR).map((s) => s.name);
    assert.deepEqual(errored, ['SSHKeySync']);
    const hcp = children.find((s) => s.name === 'HostedControlPlane')!;
    assert.deepEqual(
      [hcp.attributes['reconcile.predicted'], hcp.attributes['reconcile.outcome'], hcp.attributes['reconcile.group']],
      [true, 'ok', 'CoreHCPChain'],
    );
    await provider.shutdown();
  });
});
