/**
 * Components with heavy dependencies load only when configured: the `run` command's static import graph (what Node
 * loads before the config is read) reaches no OpenTelemetry SDK or exporter, no protobufjs (the OTLP decoder), no CEL
 * runtime and no Kubernetes client; each component's create() imports them. An idle sidecar pays for none of them
 * (bench/memory.ts measures it: docs/scaling.md).
 */
import { deepStrictEqual, ok } from 'node:assert/strict';
import { REPO } from '../support/paths.js';
import { staticImports } from '../lint/static-imports.js';

describe('sidecar: heavy components load only when configured', function () {
  // Parses a few hundred source files with the TypeScript parser.
  this.timeout(30_000);

  it('the run command and the sidecar statically load only @prometheus-io/client and yaml', () => {
    deepStrictEqual(staticImports(REPO, 'cli/run.ts').packages, ['@prometheus-io/client', 'yaml']);
    deepStrictEqual(staticImports(REPO, 'sidecar/sidecar.ts').packages, ['@prometheus-io/client']);
  });

  it('what the components load when configured is what the walk sees behind them', () => {
    const behind = (entry: string): readonly string[] => staticImports(REPO, entry).packages;
    for (const [entry, heavy] of [
      ['outputs/traces/exporter.ts', '@opentelemetry/sdk-trace'],
      ['collector/otlp/internal/receiver.ts', 'protobufjs'],
      ['collector/otlp/internal/grpc.ts', '@grpc/grpc-js'],
      ['sidecar/recreations.ts', '@marcbachmann/cel-js'],
      ['collector/status/source.ts', '@kubernetes/client-node'],
    ] as const) {
      ok(behind(entry).includes(heavy), `${entry} loads ${heavy}: ${behind(entry).join(', ')}`);
    }
  });
});
