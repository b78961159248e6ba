/**
 * Other operators' reconcile spans, built with the real OpenTelemetry JS SDK under those projects' own names and
 * attributes and sent through the real OTLP exporters, become the attempts the span mappings say
 * (collector/otlp/internal/span-mappings.ts):
 *   - kube-rs: kube-runtime's `reconciling object` span with `object.ref` (ObjectRef's Display,
 *     `Kind.version.group/name.namespace`) and `object.reason` (kube-runtime/src/controller/mod.rs, `applier`);
 *   - Tekton: `TaskRun:ReconcileKind` / `PipelineRun:ReconcileKind` with `taskrun` / `pipelinerun` and `namespace`,
 *     a child of the long-lived `TaskRun:Reconciler` span (pkg/reconciler/taskrun/taskrun.go and tracing.go).
 * Operations are the roots' direct children; a root without children is one operation with its own outcome; a span
 * that matches no mapping, or a root whose attributes give no object, is counted, never guessed.
 */
import { deepStrictEqual, strictEqual } from 'node:assert';
import { ROOT_CONTEXT, SpanStatusCode, trace, type HrTime, type Span, type Tracer } from '@opentelemetry/api';
import { kubeRsObject } from '../../../collector/otlp/internal/span-mappings.js';
import { OtlpReceiver } from '../../../collector/otlp/internal/receiver.js';
import type { AttemptRecord } from '../../../collector/records.js';
import { CollectingSink, ManualScheduler, otlpExporter, tracerProvider, type Encoding } from './helpers.js';
import { until } from '../../support/until.js';

const T0 = Date.UTC(2026, 10, 1) * 1_000_000;
/** `ms` milliseconds after T0, as an HrTime. */
const at = (ms: number): HrTime => {
  const ns = BigInt(T0) + BigInt(ms) * 1_000_000n;
  return [Number(ns / 1_000_000_000n), Number(ns % 1_000_000_000n)];
};

function child(tracer: Tracer, parent: Span, name: string, from: number, to: number, error?: string): Span {
  const span = tracer.startSpan(name, { startTime: at(from) }, trace.setSpan(ROOT_CONTEXT, parent));
  if (error !== undefined) span.setStatus({ code: SpanStatusCode.ERROR, message: error });
  span.end(at(to));
  return span;
}

/** What kube-rs exports: the runtime's span around the reconciler, the reconciler's own spans (tracing) under it. */
function kubeRs(tracer: Tracer): void {
  const lorem = tracer.startSpan('reconciling object', {
    root: true,
    startTime: at(0),
    attributes: { 'object.ref': 'Document.v1.kube.rs/lorem.default', 'object.reason': 'object updated' },
  });
  child(tracer, lorem, 'apply', 1, 5);
  child(tracer, lorem, 'publish', 5, 7, 'failed to publish: 409 Conflict');
  lorem.end(at(8));
  // a reconciler with no spans of its own: the attempt is its one operation
  const ipsum = tracer.startSpan('reconciling object', {
    root: true,
    startTime: at(10),
    attributes: { 'object.ref': 'Document.v1.kube.rs/ipsum.default', 'object.reason': 'reconciler requested retry' },
  });
  ipsum.setStatus({ code: SpanStatusCode.ERROR, message: 'boom' });
  ipsum.end(at(12));
  // a cluster-scoped kind while the mapping expects a namespace: refused, not guessed
  tracer
    .startSpan('reconciling object', { root: true, startTime: at(20), attributes: { 'object.ref': 'Node.v1./worker-1', 'object.reason': 'object updated' } })
    .end(at(21));
}

/** What Tekton exports: `TaskRun:Reconciler` (kept in the run's status) over each `TaskRun:ReconcileKind`. */
function tekton(tracer: Tracer): void {
  const reconciler = tracer.startSpan('TaskRun:Reconciler', { root: true, startTime: at(30), attributes: { taskrun: 'build-1', namespace: 'ci' } });
  const kind = tracer.startSpan(
    'TaskRun:ReconcileKind',
    { startTime: at(31), attributes: { taskrun: 'build-1', namespace: 'ci' } },
    trace.setSpan(ROOT_CONTEXT, reconciler),
  );
  const prepare = tracer.startSpan('prepare', { startTime: at(32) }, trace.setSpan(ROOT_CONTEXT, kind));
  child(tracer, prepare, 'ValidateResolvedTask', 33, 34);
  prepare.end(at(35));
  child(tracer, kind, 'reconcile', 35, 40);
  kind.end(at(41));
  reconciler.end(at(42));
  const run = tracer.startSpan('PipelineRun:ReconcileKind', { root: true, startTime: at(50), attributes: { pipelinerun: 'pipe-1', namespace: 'ci' } });
  run.end(at(53));
}

function record(ms: number, controller: string, object: string, operations: AttemptRecord['operations']): AttemptRecord {
  const time = new Date(Date.UTC(2026, 10, 1) + ms).toISOString().replace('.000Z', 'Z');
  return {
    time,
    timeMs: Date.parse(time),
    controller,
    object,
    loop: 'sequential',
    operations,
    origin: { source: 'otlp', traceId: 'hex', spanId: 'hex', incomplete: false },
  };
}

const EXPECTED: readonly AttemptRecord[] = [
  record(0, 'document', 'default/lorem', [
    { name: 'apply', outcome: 'ok', durationSeconds: 0.004 },
    { name: 'publish', outcome: 'error', error: 'failed to publish: 409 Conflict', durationSeconds: 0.002 },
  ]),
  record(10, 'document', 'default/ipsum', [{ name: 'reconcile', outcome: 'error', error: 'boom', durationSeconds: 0.002 }]),
  record(31, 'taskrun', 'ci/build-1', [
    { name: 'prepare', outcome: 'ok', durationSeconds: 0.003 },
    { name: 'reconcile', outcome: 'ok', durationSeconds: 0.005 },
  ]),
  record(50, 'pipelinerun', 'ci/pipe-1', [{ name: 'reconcile', outcome: 'ok', durationSeconds: 0.003 }]),
];

describe('otlp/span-mappings: kube-rs and Tekton reconcile spans become attempts', () => {
  for (const encoding of ['protobuf', 'json'] as Encoding[]) {
    it(`maps what the real SDK sends over OTLP/HTTP ${encoding}, counting what matches no mapping`, async () => {
      const sink = new CollectingSink();
      const clock = new ManualScheduler();
      const receiver = new OtlpReceiver({ port: 0, spanMappings: [{ shape: 'kube-rs' }, { shape: 'tekton' }] }, sink, clock);
      await receiver.start();
      const provider = tracerProvider(otlpExporter(encoding, `http://127.0.0.1:${receiver.address().port}/v1/traces`));
      try {
        kubeRs(provider.getTracer('kube-runtime'));
        tekton(provider.getTracer('TaskRunReconciler'));
        await provider.forceFlush();
        await until('every span assembled', () => sink.receivedCount === 11 && receiver.queuedSpans === 0);
        clock.advance(1_000); // roots without reconcile.operation_count settle
        clock.advance(30_000); // the grandchild's parent (`prepare`) is no root: it waits out the max wait
        deepStrictEqual(
          [...sink.attempts].sort((a, b) => a.timeMs - b.timeMs).map((a) => ({ ...a, origin: { ...a.origin, traceId: 'hex', spanId: 'hex' } })),
          EXPECTED,
        );
        deepStrictEqual(
          sink.rejections.map((r) => [
            r.reason,
            r.message
              .replaceAll(/ in trace [0-9a-f]{32}/g, '')
              .replace(/span [0-9a-f]{16}/, 'span S')
              .replace(/root( span)? \(?[0-9a-f]{16}\)?/, 'root$1 R'),
          ]),
          [
            [
              'orphan_span',
              'span S ("TaskRun:Reconciler"): neither an attempt root (no reconcile.controller attribute, and no span mapping matches: reconcile, kube-rs, tekton) nor the child of one',
            ],
            [
              'invalid_record',
              'span S ("reconciling object"): attempt of root R: kube-rs mapping: object.ref "Node.v1./worker-1" has no .namespace after the name (a cluster-scoped kind: set namespaced: false)',
            ],
            ['orphan_span', 'span S ("ValidateResolvedTask"): its root span R did not arrive within 30000 ms'],
          ],
        );
        // 11 spans in: 8 in the four attempts (two of them stand for their root alone), 3 dropped
        strictEqual(sink.receivedCount, 11);
      } finally {
        await provider.shutdown();
        await receiver.stop();
      }
    });
  }

  it('reads object.ref as kube-runtime writes it: the group may hold dots, the name too, the namespace never', () => {
    deepStrictEqual(kubeRsObject('Document.v1.kube.rs/lorem.default', true, undefined), { controller: 'document', object: 'default/lorem' });
    deepStrictEqual(kubeRsObject('ConfigMap.v1./my.config.kube-system', true, undefined), { controller: 'configmap', object: 'kube-system/my.config' });
    deepStrictEqual(kubeRsObject('Node.v1./worker.1', false, 'nodes'), { controller: 'nodes', object: 'worker.1' });
    deepStrictEqual(kubeRsObject('lorem', true, undefined), { problem: 'object.ref "lorem" is not Kind.version.group/name' });
    deepStrictEqual(kubeRsObject(undefined, true, undefined), { problem: 'no object.ref string attribute' });
  });
});

describe('otlp/span-mappings: the config', () => {
  const config = (mappings: string): string => `apiVersion: reconcile-shadow/v1
kind: ShadowConfig
models: [hypershift-hostedcluster]
sources:
  otlp:
    listen: 127.0.0.1:0
    spanMappings: ${mappings}
`;

  it('takes the built-in shapes with their defaults, and names what a span shape misses', async () => {
    const { parseConfig } = await import('../../../sidecar/config.js');
    deepStrictEqual(parseConfig(config('[{shape: kube-rs, controller: document}, {shape: tekton, loop: phased}]'), 'shadow.yaml').sources.otlp?.spanMappings, [
      { shape: 'kube-rs', controller: 'document', loop: 'sequential', operation: 'reconcile', namespaced: true },
      { shape: 'tekton', loop: 'phased', operation: 'reconcile', namespaced: true },
    ]);
    let message = '';
    try {
      parseConfig(config('[{shape: span, span: Reconcile}, {shape: tekton, nameAttribute: x}]'), 'shadow.yaml');
    } catch (e) {
      message = (e as Error).message;
    }
    deepStrictEqual(message.split('\n'), [
      'shadow.yaml:7 sources.otlp.spanMappings[0]: shape span needs span, nameAttribute and controller; missing: nameAttribute, controller',
      'shadow.yaml:7 sources.otlp.spanMappings[1].nameAttribute: only for shape: span',
    ]);
  });
});
