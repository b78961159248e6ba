/**
 * Request bodies exactly as a real OpenTelemetry exporter sends them: a local HTTP server keeps each request's body
 * while the exporter (made for the server's URL) sends what `emit` traced, in batches of `batchSize` spans, flushed at
 * the end. Shared by the OTLP tests that need the real exporter's bytes and by the OTLP benchmark.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Tracer } from '@opentelemetry/api';
import { BatchSpanProcessor, TracerProvider, type SpanExporter } from '@opentelemetry/sdk-trace';

export interface CaptureOptions {
  /** The instrumentation scope the spans are traced under (it is written into every body). */
  readonly scope: string;
  readonly batchSize?: number;
}

export async function captureExportedBodies(
  exporter: (url: string) => SpanExporter,
  emit: (tracer: Tracer) => void,
  options: CaptureOptions,
): Promise<Buffer[]> {
  const bodies: Buffer[] = [];
  const server = createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (c: Buffer) => parts.push(c));
    req.on('end', () => {
      bodies.push(Buffer.concat(parts));
      res.writeHead(200, { 'content-type': req.headers['content-type'] ?? 'application/json' }).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/traces`;
  const processor = new BatchSpanProcessor({
    exporter: exporter(url),
    maxExportBatchSize: options.batchSize ?? 512,
    maxQueueSize: 1_000_000,
    scheduledDelayMillis: 60_000,
  });
  const provider = new TracerProvider({ spanProcessors: [processor] });
  emit(provider.getTracer(options.scope));
  await provider.forceFlush();
  await provider.shutdown();
  await new Promise<void>((r) => server.close(() => r()));
  return bodies;
}
