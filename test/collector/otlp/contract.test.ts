/**
 * End to end: every attempt of a contract journal goes out as spans through the real OTel exporter, into the
 * receiver, and the AttemptRecords it makes, analyzed as `analyze --format jsonl` does, give exactly the contract's
 * expected rows. The receiver hands attempts on in completion order; they are analyzed in time order, which is the
 * journal's order (one object is reconciled by one worker at a time, so its attempts never overlap).
 */
import { deepStrictEqual, strictEqual } from 'node:assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { compileModel } from '../../../analyzer/compiled-model.js';
import { analyzeAttempt, attemptRow, OutcomeHistory } from '../../../analyzer/engine.js';
import { parseAttemptLine } from '../../../collector/journal/format.js';
import { emitAttempt } from '../../../collector/otlp/internal/emit.js';
import { OtlpReceiver } from '../../../collector/otlp/internal/receiver.js';
import type { AttemptRecord } from '../../../collector/records.js';
import { loadModelFile } from '../../../sidecar/files.js';
import { CONTRACT_CASES as CONTRACT } from '../../support/paths.js';
import { CollectingSink, otlpExporter, tracerProvider, type Encoding, type ExporterConfig } from './helpers.js';

/** Attempts per forceFlush: a few batches at a time stays under the exporter's 30 concurrent exports. */
const ATTEMPTS_PER_FLUSH = 20;

function lines(file: string): string[] {
  return readFileSync(join(CONTRACT, file), 'utf8')
    .split('\n')
    .filter((l) => l !== '');
}

function journal(name: string): AttemptRecord[] {
  return lines(`${name}.journal.jsonl`).map((text, i) => {
    const parsed = parseAttemptLine(text, i + 1, { file: `${name}.journal.jsonl` });
    if (!parsed.ok) throw new Error(parsed.rejection.message);
    return parsed.record;
  });
}

/** What the record says about the attempt, without where it came from or how long operations took. */
function essence(r: AttemptRecord): unknown {
  return { ...r, origin: undefined, operations: r.operations.map(({ name, outcome, error }) => ({ name, outcome, error })) };
}

const CASES: { name: string; encoding: Encoding; config: ExporterConfig }[] = [
  { name: 'world-phased', encoding: 'json', config: {} },
  { name: 'world-sequential', encoding: 'protobuf', config: { compression: 'gzip' as ExporterConfig['compression'] } },
  { name: 'prediction-from-history', encoding: 'protobuf', config: {} },
  { name: 'validation-gate-stop', encoding: 'json', config: {} },
];

describe('otlp end to end: contract journals through the real exporter and the receiver', () => {
  const cm = compileModel(loadModelFile(join(CONTRACT, 'model.yaml')));

  for (const { name, encoding, config } of CASES) {
    it(`${name} (${encoding}${config.compression ? ', gzip' : ''}) gives the contract's expected rows`, async () => {
      const sent = journal(name);
      const sink = new CollectingSink();
      const receiver = new OtlpReceiver({ port: 0 }, sink);
      await receiver.start();
      const provider = tracerProvider(otlpExporter(encoding, `http://127.0.0.1:${receiver.address().port}/v1/traces`, config));
      try {
        const tracer = provider.getTracer('operator');
        for (let i = 0; i < sent.length; i += ATTEMPTS_PER_FLUSH) {
          for (const a of sent.slice(i, i + ATTEMPTS_PER_FLUSH)) emitAttempt(tracer, a);
          await provider.forceFlush();
        }
        await sink.until(`${sent.length} attempts`, () => sink.attempts.length === sent.length, { timeoutMs: 30_000 });
      } finally {
        await provider.shutdown();
        await receiver.stop();
      }
      deepStrictEqual(sink.rejections, []);
      const received = [...sink.attempts].sort((a, b) => a.timeMs - b.timeMs);
      strictEqual(received.filter((r) => r.origin.incomplete).length, 0);
      deepStrictEqual(received.map(essence), sent.map(essence));
      const history = new OutcomeHistory(cm.ops.length);
      const rows = received.map((r) => attemptRow(cm, analyzeAttempt(cm, r, history)));
      deepStrictEqual(rows, lines(`${name}.expected.jsonl`));
    });
  }
});
