import assert from 'node:assert/strict';
import { compileModel } from '../../../analyzer/compiled-model.js';
import { ErrorMapper } from '../../../collector/readings/error-mapping.js';
import { inLoop } from '../../../model/effects.js';
import { SYSTEM_TIMERS } from '../../../collector/kube/informer.js';
import { HYPERSHIFT_OPERATOR } from '../../../collector/hypershift/operator-loop.js';
import type { AttemptRecord, Rejection } from '../../../collector/records.js';
import { HostedClusterStatusSource, type StatusTransition } from '../../../collector/status/source.js';
import { resolveModel } from '../../../sidecar/files.js';
import type { LoopKind } from '../../../model/types.js';
import { World } from '../../../simulator/world.js';
import { FakeKubeApiServer, kubeConfigFor, RESOURCES } from '../../support/fake-kube-apiserver.js';
import { errorText, operatorCondition, type Expectation } from './operator-condition.js';

const model = resolveModel('hypershift-hostedcluster');
const cm = compileModel(model);
const mapper = new ErrorMapper(model);
const VERSION = { [HYPERSHIFT_OPERATOR.versionAnnotation]: 'openshift/hypershift: 3ee9615567acffaf3e3ee25c2ca2942d650565cf. Latest supported OCP: 5.1.0' };

/** A seeded simulated fleet (the simulator, in process): what the operator did, attempt by attempt. */
function journal(observe: LoopKind): AttemptRecord[] {
  return [...new World({ model, objects: 4, durationMs: 12 * 3_600_000, seed: 7, observe }).attempts()];
}

/** metav1.Time: whole seconds. */
const kubeTime = (ms: number): string => new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');

/** An operation whose error text (in `loop`) maps back to it alone; others (no format, a shared text) are not stated by design. */
const recoverable = (op: string, loop: LoopKind): boolean => {
  const m = mapper.map(errorText(cm, op, loop), (f) => inLoop(f, loop));
  return m.length === 1 && m[0]!.operation === op;
};

interface Written {
  readonly attempt: AttemptRecord;
  readonly expectation: Expectation;
  readonly flipped: boolean;
  readonly lastTransitionTime: string;
}

const WORLDS = [
  {
    name: 'world-sequential',
    loop: 'sequential',
    objects: ['clusters/hc-0000', 'clusters/hc-0001', 'clusters/hc-0002', 'clusters/hc-0003'],
    legacyEnv: [{ name: HYPERSHIFT_OPERATOR.legacyEnv, value: '1' }],
  },
  { name: 'world-phased', loop: 'phased', objects: ['clusters/hc-0000', 'clusters/hc-0001', 'clusters/hc-0002', 'clusters/hc-0003'], legacyEnv: [] },
] as const;

describe('HostedClusterStatusSource: a world’s condition transitions carry the journal’s failures and blocked groups', () => {
  for (const world of WORLDS) {
    it(`${world.name}: every object's transitions through the real informer, the loop read from the operator Deployment`, async () => {
      const server = new FakeKubeApiServer();
      await server.start();
      let clock = 0;
      const records: AttemptRecord[] = [];
      const rejections: Rejection[] = [];
      const transitions: StatusTransition[] = [];
      let wake: () => void = () => undefined;
      const source = new HostedClusterStatusSource(
        {
          model,
          kubeConfig: kubeConfigFor(server),
          timers: { ...SYSTEM_TIMERS, now: () => clock },
          onTransition: (t) => {
            transitions.push(t);
            wake();
          },
        },
        { attempt: (r) => records.push(r), reject: (r) => rejections.push(r) },
      );
      try {
        server.create(RESOURCES.deployments, {
          metadata: { name: 'operator', namespace: 'hypershift', annotations: VERSION },
          spec: { template: { spec: { containers: [{ name: 'operator', env: [...world.legacyEnv] }] } } },
        });
        for (const object of world.objects) {
          const [namespace, name] = object.split('/') as [string, string];
          server.create(RESOURCES.hostedClusters, { metadata: { name, namespace }, spec: {} });
        }
        await source.start();
        await source.whenSynced();

        const attempts = journal(world.loop);
        /** Operations the world never records (e.g. a no-op it leaves out): absent from an attempt says nothing. */
        const journaled = new Set(attempts.flatMap((a) => a.operations.map((o) => o.name)));
        const written: Written[] = [];
        const current = new Map<string, { status: string; message: string; lastTransitionTime: string }>();
        for (const attempt of attempts.filter((a) => (world.objects as readonly string[]).includes(a.object))) {
          const expectation = operatorCondition(cm, attempt);
          const c = expectation.condition;
          const before = current.get(attempt.object);
          if (before && before.status === c.status && before.message === c.message) continue; // the operator writes only changes
          const lastTransitionTime = before?.status === c.status ? before.lastTransitionTime : kubeTime(attempt.timeMs);
          const flipped = before?.status !== c.status;
          current.set(attempt.object, { status: c.status, message: c.message, lastTransitionTime });
          written.push({ attempt, expectation, flipped, lastTransitionTime });
          clock = attempt.timeMs;
          const [namespace, name] = attempt.object.split('/') as [string, string];
          const seen = new Promise<void>((resolve) => (wake = resolve));
          server.patchStatus(RESOURCES.hostedClusters, namespace, name, { conditions: [{ ...c, lastTransitionTime, observedGeneration: attempt.generation }] });
          await seen;
        }

        assert.ok(written.length >= 20, `a meaningful number of transitions (${written.length})`);
        assert.equal(records.length, written.length, 'one record per transition');
        let unrecoverable = 0;
        written.forEach((w, i) => {
          const r = records[i]!;
          const t = transitions[i]!;
          const at = `transition ${i} (${w.attempt.time} ${w.attempt.object}: ${w.expectation.condition.message})`;
          assert.equal(r.object, w.attempt.object, at);
          assert.equal(r.loop, w.attempt.loop, at);
          assert.equal(t.loopDecidedBy, 'deployment', at);
          assert.equal(r.generation, w.attempt.generation, at);
          assert.deepEqual(r.origin, { source: 'status', transition: true }, at);
          if (w.flipped) assert.deepEqual([r.time, r.timeMs], [w.lastTransitionTime, Date.parse(w.lastTransitionTime)], at);
          else assert.deepEqual([r.time, r.timeMs], [new Date(w.attempt.timeMs).toISOString(), w.attempt.timeMs], at);

          const failing = r.operations.filter((o) => o.outcome === 'error').map((o) => o.name);
          const visible = w.expectation.visibleFailures;
          assert.deepEqual(
            failing,
            visible.filter((op) => recoverable(op, w.attempt.loop)),
            `${at}: failing operations`,
          );
          unrecoverable += visible.filter((op) => !recoverable(op, w.attempt.loop)).length;
          assert.deepEqual([...t.blocked].sort(), w.expectation.blocked, `${at}: blocked groups`);

          // What the record settles as ok must have run without error in the journal. A True condition is exempt:
          // a silent stop also sets True, and the condition cannot tell (docs/status-source.md).
          if (w.expectation.condition.status === 'False') {
            const journalOutcome = new Map(w.attempt.operations.map((o) => [o.name, o.outcome]));
            for (const o of r.operations.filter((op) => op.outcome === 'ok')) {
              const said = journalOutcome.get(o.name) ?? (journaled.has(o.name) ? 'absent' : 'ok');
              assert.ok(said === 'ok' || said === 'skip', `${at}: ${o.name} recorded ok, journal says ${said}`);
            }
          }
        });
        assert.ok(
          written.some((w) => w.expectation.visibleFailures.some((op) => recoverable(op, w.attempt.loop))),
          'some failures map',
        );
        if (world.name === 'world-phased') {
          assert.ok(
            written.some((w) => w.expectation.blocked.length > 0 && w.expectation.visibleFailures.some((op) => recoverable(op, w.attempt.loop))),
            'a mapped critical failure with blocked groups',
          );
          assert.ok(
            written.some((w) => w.expectation.condition.message.startsWith('[')),
            'a non-critical aggregate',
          );
        }
        assert.deepEqual(rejections, [], 'an unmapped message is noted, never a dropped transition');
        assert.equal(source.unmappedSample().total, unrecoverable);
        assert.ok(server.requests.every((r) => r.method === 'GET' && !r.path.includes('/secrets')));
      } finally {
        await source.stop();
        await server.close();
      }
    });
  }
});
