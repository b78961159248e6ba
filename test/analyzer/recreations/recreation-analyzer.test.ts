import { strict as assert } from 'node:assert';
import type { FinishedRecreation, InFlightRecreation } from '../../../analyzer/recreations/tracker.js';
import type { UnreconciledPeriod } from '../../../analyzer/recreations/unreconciled.js';
import { trackerOptions } from '../../../analyzer/recreations/config.js';
import { RecreationAnalyzer } from '../../../analyzer/recreations/recreation-analyzer.js';
import { toManagedObject } from '../../../collector/objects/observation.js';
import { at, cluster, compile, job, JOB_TASK_CONFIG, jobRaw, shadowOf, T0 } from './world.js';

const RULE_CONFIG = JOB_TASK_CONFIG.replace('recreate_on_change: true', 'recreate_on_change: false').replace(
  '    lifecycle:\n',
  `    lifecycle:
      recreate:
        when:
          expression: |
            resources.?job.hasValue()
            && string(generation) != resources.job.metadata.annotations["hyperfleet.io/generation"]
`,
);

function recorder() {
  const finished: FinishedRecreation[] = [];
  const evicted: InFlightRecreation[] = [];
  const periods: UnreconciledPeriod[] = [];
  return {
    finished,
    evicted,
    periods,
    listener: {
      finished: (r: FinishedRecreation) => finished.push(r),
      evicted: (r: InFlightRecreation) => evicted.push(r),
      unreconciled: (p: UnreconciledPeriod) => periods.push(p),
    },
  };
}

const phases = (r: FinishedRecreation) => [r.trigger, r.deletionSeconds, r.creationSeconds, r.availabilitySeconds, r.totalSeconds, r.stuck, r.rebuilt];

describe('recreation analyzer', () => {
  it('a Job recreated by recreate_on_change: triggered by the cluster line with the new generation, measured by phase', () => {
    const rec = recorder();
    const shadow = shadowOf(JOB_TASK_CONFIG, rec.listener);
    const old = { cluster: 'c1', uid: 'old', generation: 1, created: at(0) };
    shadow.observe(cluster(at(0), { id: 'c1', generation: 1 }));
    shadow.observe(job('ADDED', at(1), old));
    shadow.observe(job('MODIFIED', at(60), { ...old, complete: at(60) }));
    shadow.observe(cluster(at(100), { id: 'c1', generation: 2 }));
    assert.deepEqual(
      [...shadow.inFlight()].map((r) => [r.phase, r.oldUid, r.triggeredAtMs]),
      [['triggered', 'old', at(100)]],
    );
    shadow.observe(job('MODIFIED', at(103), { ...old, complete: at(60), deletion: at(103) }));
    assert.equal([...shadow.inFlight()][0]!.phase, 'deletion');
    shadow.observe(job('DELETED', at(104), { ...old, complete: at(60), deletion: at(103) }));
    assert.equal([...shadow.inFlight()][0]!.phase, 'creation');
    const fresh = { cluster: 'c1', uid: 'new', generation: 2, created: at(105) };
    shadow.observe(job('ADDED', at(105), fresh));
    assert.deepEqual(
      [...shadow.inFlight()].map((r) => [r.phase, r.newUid, r.newGeneration]),
      [['availability', 'new', '2']],
    );
    shadow.observe(job('MODIFIED', at(190), { ...fresh, complete: at(190) }));
    assert.equal(shadow.stats.recreationsFinished, 1);
    assert.deepEqual(phases(rec.finished[0]!), ['recreate_on_change', 1, 1, 85, 90, false, false]);
    // lead 3 s + deletion 1 s + creation 1 s + availability 85 s; the designed flow waits for the next 10 s event.
    assert.deepEqual(rec.finished[0]!.predicted, { blocking: 90, sentinel: 99 });
    assert.deepEqual(Object.fromEntries(shadow.stats.decisions.get('Job')!), { create: 2, skip: 4, recreate: 2 });
  });

  it('a deletion held by a finalizer across many events stays in deletion, turns stuck, and measures the hold', () => {
    const rec = recorder();
    const shadow = shadowOf(JOB_TASK_CONFIG, rec.listener);
    const old = { cluster: 'c1', uid: 'old', generation: 1, created: at(0), complete: at(30), finalizers: ['example.com/hold'] };
    shadow.observe(cluster(at(0), { id: 'c1', generation: 1 }));
    shadow.observe(job('ADDED', at(1), old));
    shadow.observe(cluster(at(100), { id: 'c1', generation: 2 }));
    const held = { ...old, deletion: at(102) };
    for (let i = 0; i < 60; i++) {
      shadow.observe(job('MODIFIED', at(102 + i * 30), held));
      shadow.observe(cluster(at(110 + i * 30), { id: 'other', generation: 1 + i }));
    }
    const inFlight = [...shadow.inFlight()];
    assert.deepEqual(
      inFlight.map((r) => [r.phase, r.deletionRequestedAtMs]),
      [['deletion', at(102)]],
    );
    // 10 minutes after the trigger it is not yet stuck (strictly older than the threshold); a second later it is.
    assert.equal(shadow.snapshot(at(700)).stuck.length, 0);
    const snap = shadow.snapshot(at(701));
    assert.deepEqual(
      snap.stuck.map((s) => [s.recreation.name, s.ageSeconds]),
      [['validate-c1', 601]],
    );
    assert.deepEqual(snap.oldestSeconds.get('Job'), 601);
    assert.deepEqual(snap.inFlight.get('Job')?.get('deletion'), 1);
    shadow.observe(job('DELETED', at(1900), { ...held, finalizers: [] }));
    shadow.observe(job('ADDED', at(1901), { cluster: 'c1', uid: 'new', generation: 2, created: at(1901) }));
    shadow.observe(job('MODIFIED', at(1960), { cluster: 'c1', uid: 'new', generation: 2, created: at(1901), complete: at(1960) }));
    assert.deepEqual(phases(rec.finished[0]!), ['recreate_on_change', 1798, 1, 59, 1860, true, false]);
    assert.deepEqual(rec.finished[0]!.predicted, { blocking: 1860, sentinel: 1862 });
    assert.equal(shadow.stats.recreationsStarted, 1);
  });

  it('a restart in the middle of a recreation rebuilds its age from the objects and the API, never from zero', () => {
    const reconciledFalse = { status: 'False' as const, since: at(100) };
    const held = { cluster: 'c1', uid: 'old', generation: 1, created: at(0), complete: at(30), deletion: at(103), finalizers: ['example.com/hold'] };
    // Before the restart: the recreation was triggered at 100 s and the deletion requested at 103 s.
    const before = shadowOf(JOB_TASK_CONFIG);
    before.observe(cluster(at(0), { id: 'c1', generation: 1, reconciled: { status: 'True', since: at(40) } }));
    before.observe(job('ADDED', at(1), { ...held, deletion: undefined, finalizers: undefined }));
    before.observe(cluster(at(100), { id: 'c1', generation: 2, reconciled: reconciledFalse }));
    before.observe(job('MODIFIED', at(103), held));
    assert.equal([...before.inFlight()][0]!.triggeredAtMs, at(100));

    // After: a new sidecar lists the cluster and the object as they are at 900 s.
    const rec = recorder();
    const after = shadowOf(JOB_TASK_CONFIG, rec.listener);
    after.observe(cluster(at(900), { id: 'c1', generation: 2, reconciled: reconciledFalse }));
    after.observe(job('ADDED', at(900), held));
    const [rebuilt] = [...after.inFlight()];
    assert.deepEqual(
      [rebuilt!.phase, rebuilt!.triggeredAtMs, rebuilt!.deletionRequestedAtMs, rebuilt!.rebuilt, rebuilt!.trigger],
      ['deletion', at(100), at(103), true, 'recreate_on_change'],
    );
    assert.deepEqual(
      after.snapshot(at(900)).stuck.map((s) => s.ageSeconds),
      [800],
    );
    after.observe(job('DELETED', at(950), { ...held, finalizers: [] }));
    after.observe(job('ADDED', at(951), { cluster: 'c1', uid: 'new', generation: 2, created: at(951) }));
    after.observe(job('MODIFIED', at(999), { cluster: 'c1', uid: 'new', generation: 2, created: at(951), complete: at(999) }));
    assert.deepEqual(phases(rec.finished[0]!), ['recreate_on_change', 847, 1, 48, 899, true, true]);

    // Without Reconciled from the API, the deletion request is the best trigger estimate.
    const noApi = shadowOf(JOB_TASK_CONFIG);
    noApi.observe(cluster(at(900), { id: 'c1', generation: 2 }));
    noApi.observe(job('ADDED', at(900), held));
    assert.equal([...noApi.inFlight()][0]!.triggeredAtMs, at(103));
  });

  it('a restart after the new object was created rebuilds the availability phase from its creationTimestamp', () => {
    const rec = recorder();
    const shadow = shadowOf(JOB_TASK_CONFIG, rec.listener);
    shadow.observe(cluster(at(900), { id: 'c1', generation: 2, reconciled: { status: 'False', since: at(100) } }));
    const fresh = { cluster: 'c1', uid: 'new', generation: 2, created: at(300) };
    shadow.observe(job('ADDED', at(900), fresh));
    assert.deepEqual(
      [...shadow.inFlight()].map((r) => [r.phase, r.triggeredAtMs, r.createdAtMs, r.oldUid, r.rebuilt]),
      [['availability', at(100), at(300), null, true]],
    );
    shadow.observe(job('MODIFIED', at(960), { ...fresh, complete: at(960) }));
    assert.deepEqual(phases(rec.finished[0]!), ['recreate_on_change', null, null, 660, 860, true, true]);
    assert.equal(rec.finished[0]!.predicted, undefined);
    // A Job created before the generation moved (an update in place would keep it) is not a recreation.
    const other = shadowOf(JOB_TASK_CONFIG);
    other.observe(cluster(at(900), { id: 'c2', generation: 2, reconciled: { status: 'False', since: at(100) } }));
    other.observe(job('ADDED', at(900), { cluster: 'c2', uid: 'x', generation: 2, created: at(50) }));
    assert.equal([...other.inFlight()].length, 0);
  });

  it('without HyperFleet state, the generation comes from annotations and a deletion request is the trigger', () => {
    const rec = recorder();
    const shadow = shadowOf(JOB_TASK_CONFIG, rec.listener);
    const old = { cluster: 'c1', uid: 'old', generation: 4, created: at(0), complete: at(20) };
    shadow.observe(job('ADDED', at(0), old));
    assert.deepEqual(Object.fromEntries(shadow.stats.decisions.get('Job')!), { skip: 1 });
    shadow.observe(job('MODIFIED', at(50), { ...old, deletion: at(50) }));
    shadow.observe(job('DELETED', at(52), { ...old, deletion: at(50) }));
    shadow.observe(job('ADDED', at(53), { cluster: 'c1', uid: 'new', generation: 5, created: at(53) }));
    shadow.observe(job('MODIFIED', at(80), { cluster: 'c1', uid: 'new', generation: 5, created: at(53), complete: at(80) }));
    assert.deepEqual(phases(rec.finished[0]!), ['recreate_on_change', 2, 1, 27, 30, false, false]);
  });

  it('the designed rule: trigger rule, and a cluster deletion is a delete with a conflict, never a recreation', () => {
    const rec = recorder();
    const shadow = shadowOf(RULE_CONFIG, rec.listener);
    const old = { cluster: 'c1', uid: 'old', generation: 1, created: at(0), complete: at(20) };
    shadow.observe(cluster(at(0), { id: 'c1', generation: 1 }));
    shadow.observe(job('ADDED', at(1), old));
    shadow.observe(cluster(at(100), { id: 'c1', generation: 2, deleted: at(100) }));
    assert.equal([...shadow.inFlight()].length, 0);
    assert.deepEqual(Object.fromEntries(shadow.stats.decisions.get('Job')!), { create: 1, skip: 1, delete: 1, conflict: 1 });
    shadow.observe(cluster(at(200), { id: 'c2', generation: 3 }));
    shadow.observe(job('ADDED', at(201), { cluster: 'c2', uid: 'j2', generation: 2, created: at(0) }));
    assert.deepEqual(
      [...shadow.inFlight()].map((r) => [r.trigger, r.triggeredAtMs]),
      [['rule', at(201)]],
    );
  });

  it('bounded: in-flight recreations over the cap evict the one started first, and are counted; a gone cluster abandons its own', () => {
    const rec = recorder();
    const shadow = shadowOf(JOB_TASK_CONFIG, rec.listener, { maxInFlight: 2 });
    for (const [i, id] of ['c1', 'c2', 'c3'].entries()) {
      shadow.observe(job('ADDED', at(i), { cluster: id, uid: `u-${id}`, generation: 1, created: at(i) }));
      shadow.observe(cluster(at(10 + i), { id, generation: 2 }));
    }
    assert.deepEqual(
      [...shadow.inFlight()].map((r) => r.name),
      ['validate-c2', 'validate-c3'],
    );
    assert.deepEqual(
      rec.evicted.map((r) => r.name),
      ['validate-c1'],
    );
    assert.equal(shadow.stats.recreationsEvicted, 1);
    // A cluster hard-deleted mid-recreation: its recreation is abandoned, not evicted.
    shadow.observe({
      type: 'cluster',
      time: new Date(at(60)).toISOString(),
      timeMs: at(60),
      cluster: { id: 'c2', kind: 'Cluster', generation: 3, conditions: [], raw: { id: 'c2' } },
      gone: true,
      source: 'journal',
    });
    assert.deepEqual(
      [...shadow.inFlight()].map((r) => r.name),
      ['validate-c3'],
    );
    assert.deepEqual([shadow.stats.recreationsAbandoned, shadow.stats.recreationsEvicted], [1, 1]);
  });

  it("a cluster hard-deleted while its Job is still there: the Job's later events are read as without HyperFleet state", () => {
    const rec = recorder();
    const shadow = shadowOf(JOB_TASK_CONFIG, rec.listener);
    const j = { cluster: 'c1', uid: 'j1', generation: 3, created: at(0), complete: at(10), finalizers: ['example.com/hold'] };
    shadow.observe(cluster(at(0), { id: 'c1', generation: 3 }));
    shadow.observe(job('ADDED', at(1), j));
    shadow.observe({
      type: 'cluster',
      time: new Date(at(50)).toISOString(),
      timeMs: at(50),
      cluster: { id: 'c1', kind: 'Cluster', generation: 4, conditions: [], raw: { id: 'c1' } },
      gone: true,
      source: 'journal',
    });
    // Its deletion is then a trigger, as for any cluster the sidecar has no API state for.
    shadow.observe(job('MODIFIED', at(60), { ...j, deletion: at(60) }));
    assert.deepEqual(
      [...shadow.inFlight()].map((r) => [r.phase, r.triggeredAtMs, r.clusterId]),
      [['deletion', at(60), 'c1']],
    );
    shadow.observe(job('DELETED', at(70), { ...j, deletion: at(60), finalizers: [] }));
    assert.deepEqual(
      [...shadow.inFlight()].map((r) => [r.phase, r.goneAtMs]),
      [['creation', at(70)]],
    );
    // The generation it had is the one its annotation says: skip while it is there, create once it is gone.
    assert.deepEqual(Object.fromEntries(shadow.stats.decisions.get('Job')!), { create: 2, skip: 2 });
    assert.equal(shadow.stats.recreationsAbandoned, 0);
  });

  it("readiness `api`: a recreation is available at its cluster's next Reconciled=True after the new object was created", () => {
    const rec = recorder();
    const shadow = shadowOf(JOB_TASK_CONFIG, rec.listener, { readiness: { Job: 'api' } });
    const old = { cluster: 'c1', uid: 'old', generation: 1, created: at(0) };
    shadow.observe(cluster(at(0), { id: 'c1', generation: 1 }));
    shadow.observe(job('ADDED', at(1), old));
    shadow.observe(cluster(at(2), { id: 'c2', generation: 1 }));
    shadow.observe(job('ADDED', at(3), { cluster: 'c2', uid: 'other', generation: 1, created: at(3) }));
    shadow.observe(cluster(at(100), { id: 'c1', generation: 2, reconciled: { status: 'False', since: at(100) } }));
    shadow.observe(job('MODIFIED', at(102), { ...old, deletion: at(102) }));
    shadow.observe(job('DELETED', at(103), { ...old, deletion: at(102) }));
    shadow.observe(job('ADDED', at(104), { cluster: 'c1', uid: 'new', generation: 2, created: at(104) }));
    // Another cluster's Reconciled=True does not make it available; nor does its own while the new object is gone.
    shadow.observe(cluster(at(150), { id: 'c2', generation: 1, reconciled: { status: 'True', since: at(150) } }));
    shadow.observe(job('DELETED', at(160), { cluster: 'c1', uid: 'new', generation: 2, created: at(104) }));
    shadow.observe(cluster(at(170), { id: 'c1', generation: 2, reconciled: { status: 'True', since: at(170) } }));
    assert.deepEqual(
      [...shadow.inFlight()].map((r) => r.phase),
      ['creation'],
    );
    shadow.observe(job('ADDED', at(180), { cluster: 'c1', uid: 'newer', generation: 2, created: at(180) }));
    // A Reconciled=True from before the new object was created is not its availability.
    shadow.observe(cluster(at(181), { id: 'c1', generation: 2, reconciled: { status: 'True', since: at(170) } }));
    assert.deepEqual(
      [...shadow.inFlight()].map((r) => [r.phase, r.newUid]),
      [['availability', 'newer']],
    );
    shadow.observe(cluster(at(200), { id: 'c1', generation: 2, reconciled: { status: 'True', since: at(200) } }));
    assert.deepEqual(
      rec.finished.map((r) => [r.newUid, r.availableAtMs, ...phases(r)]),
      [['newer', at(200), 'recreate_on_change', 1, 77, 20, 100, false, false]],
    );
    assert.equal([...shadow.inFlight()].length, 0);

    // After a restart: the new object, not yet available, is a recreation in availability until Reconciled=True.
    const after = recorder();
    const restarted = shadowOf(JOB_TASK_CONFIG, after.listener, { readiness: { Job: 'api' } });
    restarted.observe(cluster(at(900), { id: 'c1', generation: 2, reconciled: { status: 'False', since: at(100) } }));
    restarted.observe(job('ADDED', at(900), { cluster: 'c1', uid: 'new', generation: 2, created: at(300) }));
    restarted.observe(cluster(at(960), { id: 'c1', generation: 2, reconciled: { status: 'True', since: at(950) } }));
    assert.deepEqual(
      after.finished.map((r) => [r.availableAtMs, ...phases(r)]),
      [[at(950), 'recreate_on_change', null, null, 650, 850, true, true]],
    );
  });

  it('Reconciled=False periods from the API, by cause: create, update, recreate, delete', () => {
    const rec = recorder();
    const shadow = shadowOf(RULE_CONFIG, rec.listener);
    shadow.observe(cluster(at(0), { id: 'c1', generation: 1, reconciled: { status: 'False', since: at(0) } }));
    shadow.observe(cluster(at(50), { id: 'c1', generation: 1, reconciled: { status: 'True', since: at(45) } }));
    shadow.observe(job('ADDED', at(40), { cluster: 'c1', uid: 'j', generation: 1, created: at(40), complete: at(44) }));
    // A spec change that recreates the Job: a recreate period.
    shadow.observe(cluster(at(100), { id: 'c1', generation: 2, reconciled: { status: 'False', since: at(100) } }));
    shadow.observe(cluster(at(300), { id: 'c1', generation: 2, reconciled: { status: 'True', since: at(290) } }));
    shadow.observe(job('DELETED', at(310), { cluster: 'c1', uid: 'j', generation: 1, created: at(40), complete: at(44) }));
    // A nodepool change that recreates nothing: an update period.
    shadow.observe(cluster(at(400), { id: 'c9', kind: 'NodePool', generation: 4, reconciled: { status: 'False', since: at(400) } }));
    shadow.observe(cluster(at(420), { id: 'c9', kind: 'NodePool', generation: 4, reconciled: { status: 'True', since: at(415) } }));
    // Soft delete, then gone.
    shadow.observe(cluster(at(500), { id: 'c1', generation: 3, deleted: at(500), reconciled: { status: 'False', since: at(500) } }));
    shadow.observe({
      type: 'cluster',
      time: new Date(at(530)).toISOString(),
      timeMs: at(530),
      cluster: { id: 'c1', kind: 'Cluster', generation: 3, conditions: [], raw: { id: 'c1' } },
      gone: true,
      source: 'journal',
    });
    assert.deepEqual(
      rec.periods.map((p) => [p.resourceType, p.id, p.cause, p.seconds]),
      [
        ['cluster', 'c1', 'create', 45],
        ['cluster', 'c1', 'recreate', 190],
        ['nodepool', 'c9', 'update', 15],
        ['cluster', 'c1', 'delete', 30],
      ],
    );
  });

  it('counts objects the task config does not manage, and objects too large to evaluate as errors', () => {
    const shadow = shadowOf(JOB_TASK_CONFIG);
    const stray = toManagedObject({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x', namespace: 'hf-c1', uid: 'u' } });
    shadow.observe({ type: 'object', time: '2026-11-02T00:00:00Z', timeMs: T0, event: 'ADDED', object: stray, source: 'journal' });
    assert.equal(shadow.stats.objectsIgnored, 1);
    const big = jobRaw({ cluster: 'c1', uid: 'big', generation: 1, created: at(0) });
    (big.status as Record<string, unknown>).items = new Array(300).fill(1);
    shadow.observe({ type: 'object', time: '2026-11-02T00:00:00Z', timeMs: T0, event: 'ADDED', object: toManagedObject(big), source: 'journal' });
    assert.deepEqual(Object.fromEntries(shadow.stats.decisions.get('Job')!), { error: 1 });
    assert.deepEqual(
      [...shadow.stats.ruleErrors.values()].map((e) => [e.rule, e.reason, e.count]),
      [['resources input', 'input_too_large', 1]],
    );
  });

  it('an output that throws is reported and isolated: the recreation path and the other outputs go on', () => {
    const failures: unknown[] = [];
    const broken = {
      finished: () => {
        throw new Error('exporter down');
      },
      decision: () => {
        throw new Error('exporter down');
      },
    };
    const shadow = new RecreationAnalyzer(compile(JOB_TASK_CONFIG), trackerOptions({}), broken, (e) => failures.push(e));
    const rec = recorder();
    shadow.listen(rec.listener);
    const old = { cluster: 'c1', uid: 'old', generation: 1, created: at(0) };
    shadow.observe(cluster(at(0), { id: 'c1', generation: 1 }));
    shadow.observe(job('ADDED', at(1), { ...old, complete: at(30) }));
    shadow.observe(cluster(at(100), { id: 'c1', generation: 2 }));
    shadow.observe(job('DELETED', at(104), { ...old, complete: at(30), deletion: at(103) }));
    const fresh = { cluster: 'c1', uid: 'new', generation: 2, created: at(105) };
    shadow.observe(job('ADDED', at(105), fresh));
    shadow.observe(job('MODIFIED', at(190), { ...fresh, complete: at(190) }));
    assert.equal(shadow.stats.recreationsFinished, 1);
    assert.deepEqual(
      rec.finished.map((r) => [r.oldUid, r.newUid, r.totalSeconds]),
      [['old', 'new', 90]],
    );
    const decisions = [...shadow.stats.decisions.get('Job')!.values()].reduce((a, b) => a + b, 0);
    assert.equal(failures.length, decisions + 1);
    assert.ok(failures.every((e) => e instanceof Error && e.message === 'exporter down'));
  });

  it("live, an API call answers only the resource's own URL: a required param on another URL fails every event, one on the cluster's own is its state", () => {
    const reasons: string[] = [];
    const other = shadowOf(
      JOB_TASK_CONFIG.replace(
        '  - name: is_deleting',
        '  - name: statuses\n    required: true\n    source: {api_call: {method: GET, url: "/clusters/{{ .clusterId }}/statuses"}}\n  - name: is_deleting',
      ),
      {
        decision: (d) => reasons.push(`${d.decision}: ${d.reason}`),
      },
    );
    other.observe(cluster(at(0), { id: 'c1', generation: 1 }));
    assert.deepEqual(reasons, [
      "error: parameter extraction failed: failed to extract required parameter 'statuses': GET /clusters/c1/statuses: not answered: the recreation analyzer holds only the resource's own state",
    ]);
    // One adapter event per change, every resource decided once in it: the cluster line, then the Job's ADDED.
    const own = shadowOf(JOB_TASK_CONFIG);
    own.observe(cluster(at(0), { id: 'c1', generation: 1, deleted: at(0) }));
    own.observe(job('ADDED', at(1), { cluster: 'c1', uid: 'u', generation: 1, created: at(1) }));
    assert.deepEqual(Object.fromEntries(own.stats.decisions.get('Job')!), { delete: 2 });
  });
});
