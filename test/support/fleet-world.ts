/**
 * A fleet for tests: three sidecars, each replaying one operator's journal (two on the sequential loop, one on the
 * phased loop, from the planted-world generator with a reversed prerequisite that makes Report fail more under the
 * phased loop), each serving its /partial on its own loopback address and the same port, as pods do; and a fleet
 * component that discovers them as the running pods of a label selector through an in-test Kubernetes API server.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { formatAttemptLine } from '../../collector/journal/format.js';
import { modelDocument } from '../../model/document.js';
import { parseConfig } from '../../sidecar/config.js';
import { startSidecar, type Sidecar } from '../../sidecar/sidecar.js';
import { plantedWorld } from '../analyzer/decisions/planted-world.js';
import { SMALL, SMALL_REVERSED, smallWorld } from '../analyzer/decisions/planted-models.js';
import { until } from './until.js';
import { FakeKubeApiServer, kubeConfigFor, RESOURCES } from './fake-kube-apiserver.js';

export const FLEET_NAMESPACE = 'hypershift';
export const FLEET_PEERS = [
  { pod: 'operator-a', host: '127.0.0.1', loop: 'sequential', half: 0 },
  { pod: 'operator-b', host: '127.0.0.2', loop: 'sequential', half: 1 },
  { pod: 'operator-c', host: '127.0.0.3', loop: 'phased', half: 0 },
] as const;
/** The planted model's controller. */
export const FLEET_CONTROLLER = 'gadget';

export interface FleetWorld {
  /** Running peers, in FLEET_PEERS order (a stopped one is removed). */
  readonly peers: Sidecar[];
  readonly fleet: Sidecar;
  /** The port every peer serves /metrics and /partial on. */
  readonly port: number;
  /** Stops the last peer (the phased one first). */
  stopPeer(): Promise<void>;
  close(): Promise<void>;
}

function sidecarConfig(modelFile: string, listen: string, sources: string, extra = ''): string {
  return `apiVersion: reconcile-shadow/v1
kind: ShadowConfig
models: [${JSON.stringify(modelFile)}]
listen: {metrics: ${listen}}
sources:
${sources}
console: {enabled: false}
${extra}`;
}

export async function startFleetWorld(options: { readonly keepFor: string; readonly interval: string }): Promise<FleetWorld> {
  const dir = mkdtempSync(join(tmpdir(), 'fleet-'));
  const modelFile = join(dir, 'model.yaml');
  writeFileSync(modelFile, stringify(modelDocument(SMALL)));
  const records = [...plantedWorld(smallWorld(11, SMALL_REVERSED))];
  // Each sequential object goes to one of the two sequential operators, by its rank.
  const sequentialObjects = [...new Set(records.filter((r) => r.loop === 'sequential').map((r) => r.object))].sort();
  const halfOf = new Map(sequentialObjects.map((o, i) => [o, i % 2]));
  const api = new FakeKubeApiServer();
  await api.start();
  const peers: Sidecar[] = [];
  let port = 0;
  for (const p of FLEET_PEERS) {
    const journal = join(dir, `${p.pod}.jsonl`);
    const mine = records.filter((r) => r.loop === p.loop && (p.loop === 'phased' || halfOf.get(r.object) === p.half));
    writeFileSync(journal, mine.map((r) => formatAttemptLine(r) + '\n').join(''));
    const sidecar = await startSidecar(
      parseConfig(
        sidecarConfig(modelFile, `${p.host}:${port}`, `  journal: {path: ${JSON.stringify(journal)}}`, `partial: {instance: ${p.pod}}\n`),
        `${p.pod}.yaml`,
      ),
      { env: {} },
    );
    port = sidecar.metricsAddress.port;
    peers.push(sidecar);
    // The journal is replayed after start: the fleet's first read must see all of it.
    const analysed = (): number => sidecar.analyzer.summary().controllers[0]?.attempts.total ?? 0;
    await until(`${p.pod} to replay its ${mine.length} attempts`, () => analysed() === mine.length, {
      timeoutMs: 20_000,
      intervalMs: 100,
      describe: () => `${analysed()} so far`,
    });
    api.create(RESOURCES.pods, {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { namespace: FLEET_NAMESPACE, name: p.pod, labels: { app: 'operator' } },
      status: { phase: 'Running', podIP: p.host },
    });
  }
  const peersSection = `  peers: {kubernetes: {namespaces: [${FLEET_NAMESPACE}], labelSelector: app=operator, port: ${port}}, interval: ${options.interval}, timeout: 1s, keepFor: ${options.keepFor}}`;
  const fleet = await startSidecar(parseConfig(sidecarConfig(modelFile, '127.0.0.1:0', peersSection), 'fleet.yaml'), {
    env: {},
    kubeConfig: kubeConfigFor(api),
    log: () => undefined,
  });
  return {
    peers,
    fleet,
    port,
    stopPeer: async () => peers.pop()?.stop(),
    close: async () => {
      await fleet.stop();
      for (const p of peers) await p.stop();
      await api.close();
    },
  };
}
