/**
 * Ground-truth worlds for the decisions: a seeded World whose attempts also carry consequences, failures that
 * happen only because another op failed earlier in the same attempt, in the order the running loop used.
 *
 * A consequence is applied after the world has run the attempt: the op is turned into an error and the loop is run
 * again on the new outcomes, so everything the error ends, chains off or blocks disappears from the record. An
 * extra error only ever removes work (it ends a loop or chain, or fails a group that then blocks), so no op that the
 * world did not run can appear. It fires only in attempts that already failed, so the world's retry timing, driven
 * by the attempt failing, is what it would have been.
 */
import type { AttemptRecord, OperationRecord } from '../collector/records.js';
import { compileModel, ERROR, OK, OUTCOME_CODE, variantOfText } from '../analyzer/compiled-model.js';
import { runPhased, runSequential } from '../analyzer/loops.js';
import type { ReconcileModel } from '../model/types.js';
import { faultsFor, type FaultSpec } from './faults.js';
import { Random } from './random.js';
import { formatError, simulatedFormat, World, type ObserveMode } from './world.js';

export interface Consequence {
  /** The op whose failure earlier in the same attempt causes it. */
  readonly after: string;
  /** The op that then fails, if the loop runs it after `after`. */
  readonly op: string;
  readonly probability: number;
  /** The wrapped cause (`%w`) of the error. */
  readonly cause: string;
}

export interface Scenario {
  readonly name: string;
  readonly faults: readonly FaultSpec[];
  readonly consequences: readonly Consequence[];
  /** Chance per attempt and op of a one-off transient error; default: the World's. */
  readonly transientErrorRate?: number;
}

export interface ScenarioWorldOptions {
  readonly objects: number;
  readonly durationMs: number;
  readonly seed: number;
  readonly observe: ObserveMode;
  readonly startMs?: number;
}

/** Attempts of a scenario's world in time order, consequences applied. */
export function* scenarioAttempts(model: ReconcileModel, scenario: Scenario, options: ScenarioWorldOptions): Generator<AttemptRecord> {
  const rate = scenario.transientErrorRate;
  const world = new World({ model, ...options, faults: scenario.faults, ...(rate === undefined ? {} : { transientErrorRate: rate }) });
  yield* withConsequences(model, world.attempts(), scenario.consequences, options.seed);
}

export function* withConsequences(
  model: ReconcileModel,
  records: Iterable<AttemptRecord>,
  consequences: readonly Consequence[],
  seed: number,
): Generator<AttemptRecord> {
  const cm = compileModel(model);
  const indexOf = (name: string): number => {
    const i = cm.opIndex.get(name);
    if (i === undefined) throw new Error(`consequence names unknown operation ${name} of model ${model.name}`);
    return i;
  };
  const rules = consequences.map((c) => ({ ...c, afterOp: indexOf(c.after), thenOp: indexOf(c.op) }));
  const causes = new Set(consequences.map((c) => c.after));
  const random = new Random(seed);

  for (const record of records) {
    if (!record.operations.some((o) => o.outcome === 'error' && causes.has(o.name))) {
      yield record;
      continue;
    }
    const position = record.loop === 'sequential' ? cm.sequentialPosition : cm.phasedPosition;
    const [namespace = '', name = ''] = record.object.split('/');
    const outcomes = new Uint8Array(cm.ops.length).fill(OK);
    const variants = new Uint8Array(cm.ops.length);
    let ran = new Set<number>();
    for (const op of record.operations) {
      const i = indexOf(op.name);
      outcomes[i] = OUTCOME_CODE[op.outcome];
      if (op.error !== undefined) variants[i] = variantOfText(cm, i, op.error);
      ran.add(i);
    }
    const fired = new Set<number>();
    /** The error text of each op a consequence made fail. */
    const caused = new Map<number, string>();
    for (;;) {
      const next = rules
        .map((r, i) => ({ r, i }))
        .filter(
          ({ r, i }) =>
            !fired.has(i) &&
            ran.has(r.afterOp) &&
            ran.has(r.thenOp) &&
            outcomes[r.afterOp] === ERROR &&
            outcomes[r.thenOp] !== ERROR &&
            position[r.afterOp]! < position[r.thenOp]!,
        )
        .sort((x, y) => position[x.r.thenOp]! - position[y.r.thenOp]!)[0];
      if (!next) break;
      fired.add(next.i);
      if (next.r.probability < 1 && !random.chance(next.r.probability)) continue;
      const filled = next.r.cause.replaceAll('{name}', name).replaceAll('{namespace}', namespace);
      const text = formatError(simulatedFormat(model.operations[next.r.thenOp]!, record.loop), filled, { namespace, name });
      outcomes[next.r.thenOp] = ERROR;
      variants[next.r.thenOp] = variantOfText(cm, next.r.thenOp, text);
      caused.set(next.r.thenOp, text);
      const run = record.loop === 'sequential' ? runSequential(cm, outcomes, variants) : runPhased(cm, outcomes, variants);
      ran = new Set([...ran].filter((op) => run.ran[op] === 1));
    }
    if (caused.size === 0) {
      yield record;
      continue;
    }
    const operations: OperationRecord[] = record.operations
      .filter((o) => ran.has(indexOf(o.name)))
      .map((o) => {
        const error = caused.get(indexOf(o.name));
        return error === undefined ? o : { name: o.name, outcome: 'error', error, durationSeconds: o.durationSeconds };
      });
    yield { ...record, operations };
  }
}

/**
 * HyperShift with two planted truths, the two the review asked about:
 * - ordering: RestoredFromBackup fails whenever PullSecretSync failed earlier in the attempt. The sequential loop
 *   runs RestoredFromBackup first; the phased loop runs the critical PullSecretSync group first (the review's
 *   "RestoredFromBackup shifted relative to pull secret sync"), so only the phased order exposes it.
 * - classification: the non-critical GlobalConfigSync group's failure makes HostedControlPlane fail (the control
 *   plane references the synced proxy CA), so continuing after it breaks the critical CoreHCPChain.
 * Two independent faults (a missing SSH key, CPO deployment conflicts) give pairs and groups with no dependence.
 */
export const HYPERSHIFT_GROUND_TRUTH: Scenario = {
  name: 'hypershift-ground-truth',
  transientErrorRate: 0,
  faults: [
    {
      name: 'pull-secret-missing',
      onsetPerHour: 0.05,
      meanMinutes: 30,
      effects: [
        { op: 'GetPullSecretBytes', outcome: 'error', cause: 'secrets "{name}-pull-secret" not found' },
        { op: 'PullSecretSync', outcome: 'error', cause: 'secrets "{name}-pull-secret" not found' },
      ],
    },
    {
      name: 'global-config-missing',
      onsetPerHour: 0.05,
      meanMinutes: 30,
      effects: [{ op: 'GlobalConfigSync', outcome: 'error', cause: 'configmaps "{name}-proxy-ca" not found' }],
    },
    {
      name: 'ssh-key-missing',
      onsetPerHour: 0.05,
      meanMinutes: 30,
      effects: [{ op: 'SSHKeySync', outcome: 'error', cause: 'secrets "{name}-ssh-key" not found' }],
    },
    {
      name: 'cpo-deployment-conflict',
      onsetPerHour: 0.05,
      meanMinutes: 10,
      effects: [
        {
          op: 'ControlPlaneOperator',
          outcome: 'error',
          cause:
            'Operation cannot be fulfilled on deployments.apps "control-plane-operator": the object has been modified; please apply your changes to the latest version and try again',
        },
      ],
    },
  ],
  consequences: [
    {
      after: 'PullSecretSync',
      op: 'RestoredFromBackup',
      probability: 1,
      cause: 'restored cluster status references pull secret "{name}-pull-secret" that is not synced',
    },
    {
      after: 'GlobalConfigSync',
      op: 'HostedControlPlane',
      probability: 1,
      cause: 'proxy trusted CA configmap "{name}-proxy-ca" not synced to the control plane namespace',
    },
  ],
};

/**
 * The embedded demo's fleet (the sidecar's simulator source): the model's usual faults, two of them far more often,
 * so that within its first simulated minutes (seconds at the demo's 60×) a 40-object mixed fleet shows every
 * headline. An SSH key going missing fails a non-critical group: the sequential loop stops there and the phased loop
 * goes on (unblocked, and starvation while the key stays missing). HostedControlPlane update conflicts fail a
 * critical group: the phased loop blocks the blockable groups after it (newly blocked, blocked-by).
 * A model without those operations keeps its usual faults.
 */
export function demoScenario(model: ReconcileModel): Scenario {
  const busier = new Map([
    ['ssh-key-missing', { onsetPerHour: 1.5, meanMinutes: 10 }],
    ['hcp-update-conflict', { onsetPerHour: 1.5, meanMinutes: 5 }],
  ]);
  return {
    name: 'demo',
    faults: faultsFor(model).map((f) => ({ ...f, ...busier.get(f.name) })),
    consequences: [],
  };
}
