/**
 * The embedded default (`reconcile-shadow run` without --config: the demo) listens for OTLP/HTTP on 4318 and
 * OTLP/gRPC on 4317 (here on free ports instead). The same 80 attempts of a simulated HyperShift fleet go out through
 * the real OTel JS exporters, the OTLP/HTTP protobuf one and the OTLP/gRPC one, plain and gzip, each into objects of
 * its own namespace (so one delivery's history does not change another's predictions), alongside the demo's own
 * simulated fleet. Each must reach the sidecar's books exactly alike: every span received, none dropped, 80 attempts
 * analyzed, the same records and the same analysis (unblocked, newly blocked, divergence) but for the namespace.
 */
import { deepStrictEqual, strictEqual } from 'node:assert';
import { OTLPTraceExporter as GrpcTraceExporter } from '@opentelemetry/exporter-trace-otlp-grpc';
import type { SpanExporter } from '@opentelemetry/sdk-trace';
import type { AttemptAnalysis } from '../../analyzer/engine.js';
import { emitAttempt } from '../../collector/otlp/internal/emit.js';
import type { OtlpReceiver } from '../../collector/otlp/internal/receiver.js';
import type { AttemptRecord } from '../../collector/records.js';
import { EMBEDDED_DEFAULT, parseConfig } from '../../sidecar/config.js';
import { resolveModel } from '../../sidecar/files.js';
import { startSidecar, type Sidecar } from '../../sidecar/sidecar.js';
import { World } from '../../simulator/world.js';
import { otlpExporter, tracerProvider, type ExporterConfig } from '../collector/otlp/helpers.js';
import { until } from '../support/until.js';

const ATTEMPTS = 80;
const GZIP = 'gzip' as ExporterConfig['compression'];

/** The first 80 attempts of a seeded simulated fleet. */
const FLEET: readonly AttemptRecord[] = (() => {
  const world = new World({
    model: resolveModel('hypershift-hostedcluster'),
    objects: 10,
    durationMs: 6 * 3_600_000,
    seed: 27,
    observe: 'mixed',
    namespace: 'fleet',
  });
  const out: AttemptRecord[] = [];
  for (const a of world.attempts()) {
    out.push(a);
    if (out.length === ATTEMPTS) break;
  }
  return out;
})();

/** The same attempts, of the same objects in `namespace`. */
function attempts(namespace: string): AttemptRecord[] {
  return FLEET.map((a) => ({ ...a, object: a.object.replace(/^fleet\//, `${namespace}/`) }));
}

const spansOf = (records: readonly AttemptRecord[]): number => records.reduce((n, r) => n + 1 + r.operations.length, 0);

/** What an analysis says, with the namespace and the span ids left out. */
function essence(a: AttemptAnalysis, namespace: string): unknown {
  const r = a.record;
  return {
    record: { ...r, object: r.object.replace(`${namespace}/`, ''), origin: { ...r.origin, traceId: undefined, spanId: undefined } },
    diverged: a.diverged,
    unblocked: a.unblocked,
    newlyBlocked: a.newlyBlocked,
    derived: a.derived,
  };
}

interface Books {
  readonly received: number;
  readonly dropped: number;
}

describe('the embedded default: OTLP/HTTP and OTLP/gRPC exporters reach the same books', function () {
  // a sidecar with real listeners and four exporters
  this.timeout(60_000);
  let sidecar: Sidecar | undefined;
  const analyses: AttemptAnalysis[] = [];
  const otlpBooks = { received: 0, dropped: 0 };

  before(async () => {
    const config = EMBEDDED_DEFAULT.replace('127.0.0.1:9464', '127.0.0.1:0').replace('127.0.0.1:4318', '127.0.0.1:0').replace('127.0.0.1:4317', '127.0.0.1:0');
    sidecar = await startSidecar(parseConfig(config, '(embedded default)'), { env: {}, log: () => undefined });
    // the books /metrics shows (records_received_total, records_dropped_total), read where they are kept
    sidecar.analyzer.listen({
      attempt: (_shadow, analysis) => void (analysis.record.origin.source === 'otlp' && analyses.push(analysis)),
      received: (source, count) => void (source === 'otlp' && (otlpBooks.received += count)),
      reject: (rejection) => void (rejection.source === 'otlp' && otlpBooks.dropped++),
    });
  });

  after(async () => {
    await sidecar?.stop();
    // Node's HTTP and HTTP/2 servers cache the Date header until the end of the current second with an unref'd timer;
    // the last answers were just sent, so let it run out before the open-handles check counts it
    await new Promise((resolve) => setTimeout(resolve, 1000 - new Date().getMilliseconds() + 10));
  });

  function receiver(): OtlpReceiver {
    return sidecar!.sources.find((s) => s.kind === 'otlp') as OtlpReceiver;
  }

  const books = (): Books => ({ ...otlpBooks });

  /** Sends the attempts of `namespace` through `exporter`; resolves with what the books gained and the analyses. */
  async function deliver(namespace: string, exporter: SpanExporter): Promise<{ books: Books; analyses: unknown[] }> {
    const before = books();
    const sent = attempts(namespace);
    const provider = tracerProvider(exporter);
    try {
      for (const a of sent) emitAttempt(provider.getTracer('operator'), a);
      await provider.forceFlush();
      const mine = (): AttemptAnalysis[] => analyses.filter((a) => a.record.object.startsWith(`${namespace}/`));
      await until(`${ATTEMPTS} attempts of ${namespace} analyzed`, () => mine().length === ATTEMPTS);
      const after = books();
      strictEqual(after.received - before.received, spansOf(sent), `${namespace}: every span received`);
      return {
        books: { received: after.received - before.received, dropped: after.dropped - before.dropped },
        analyses: mine()
          .sort((a, b) => a.record.timeMs - b.record.timeMs || a.record.object.localeCompare(b.record.object))
          .map((a) => essence(a, namespace)),
      };
    } finally {
      await provider.shutdown();
    }
  }

  it('listens on both, and the 80 attempts of each exporter land in the books and the analysis exactly alike', async () => {
    const grpcUrl = `http://127.0.0.1:${receiver().grpcAddress().port}`;
    const httpUrl = `http://127.0.0.1:${receiver().address().port}/v1/traces`;
    const http = await deliver('http', otlpExporter('protobuf', httpUrl));
    const httpGzip = await deliver('http-gzip', otlpExporter('protobuf', httpUrl, { compression: GZIP }));
    const grpc = await deliver('grpc', new GrpcTraceExporter({ url: grpcUrl }));
    const grpcGzip = await deliver('grpc-gzip', new GrpcTraceExporter({ url: grpcUrl, compression: GZIP }));
    deepStrictEqual(http.books, { received: spansOf(attempts('http')), dropped: 0 });
    for (const [name, other] of Object.entries({ httpGzip, grpc, grpcGzip })) {
      deepStrictEqual(other.books, http.books, name);
      deepStrictEqual(other.analyses, http.analyses, name);
    }
  });
});
