/**
 * A seeded world of objects whose faults come and go, reconciled by the chosen loop. It yields journal records in
 * time order, lazily, so a million-attempt journal streams in flat memory. Used by `simulate`, the embedded default
 * of `run`, the tests and the benchmarks.
 */
import type { AttemptRecord, OperationRecord } from '../collector/records.js';
import { ERROR, OK, SKIP, STOP, compileModel, variantOfText, type CompiledModel } from '../analyzer/compiled-model.js';
import { runPhased, runSequential } from '../analyzer/loops.js';
import { formatsIn } from '../model/effects.js';
import type { LoopKind, ModelOperation, ReconcileModel } from '../model/types.js';
import { faultsFor, HYPERSHIFT_SKIPS, type FaultSpec } from './faults.js';
import { Random } from './random.js';

export type ObserveMode = LoopKind | 'mixed';

export interface WorldOptions {
  readonly model: ReconcileModel;
  readonly objects: number;
  readonly durationMs: number;
  readonly seed: number;
  /** Which loop the operator runs; `mixed` runs half the fleet on each (a fleet mid-rollout). */
  readonly observe: ObserveMode;
  readonly startMs?: number;
  readonly faults?: readonly FaultSpec[];
  /** Chance per attempt and op of a one-off transient error (an API conflict). */
  readonly transientErrorRate?: number;
  readonly namespace?: string;
}

export const DEFAULT_START_MS = Date.parse('2026-11-01T00:00:00Z');
/** controller-runtime's per-item backoff for a failing HostedCluster: 1 s doubling to a 10 s cap. */
const BACKOFF_MIN_MS = 1000;
const BACKOFF_MAX_MS = 10_000;
/** A healthy object is reconciled when one of its many watched children changes: every few minutes. */
const HEALTHY_MEAN_MS = 180_000;
const SPEC_CHANGES_PER_HOUR = 0.05;

interface ObjectState {
  readonly name: string;
  readonly observe: LoopKind;
  readonly skips: Uint8Array;
  /** Per fault: end time of the active episode, or 0 when inactive. */
  readonly activeUntil: Float64Array;
  generation: number;
  failures: number;
  lastMs: number;
}

/** A binary min-heap of [time, object] so objects reconcile in global time order. */
class Schedule {
  private readonly heap: [number, number][] = [];

  push(time: number, object: number): void {
    const h = this.heap;
    h.push([time, object]);
    let i = h.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (h[parent]![0] <= h[i]![0]) break;
      [h[parent], h[i]] = [h[i]!, h[parent]!];
      i = parent;
    }
  }

  pop(): [number, number] | undefined {
    const h = this.heap;
    const top = h[0];
    const last = h.pop();
    if (h.length > 0 && last) {
      h[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < h.length && h[l]![0] < h[m]![0]) m = l;
        if (r < h.length && h[r]![0] < h[m]![0]) m = r;
        if (m === i) break;
        [h[m], h[i]] = [h[i]!, h[m]!];
        i = m;
      }
    }
    return top;
  }
}

/** The format a simulated error of `op` takes in `loop`: its first one there (a bare cause when it has none). */
export function simulatedFormat(op: ModelOperation, loop: LoopKind): string {
  return formatsIn(op, loop)[0]?.format ?? '%w';
}

/** Fills a Go format string: %w gets the cause, other verbs a value derived from the object. */
export function formatError(format: string, cause: string, object: { namespace: string; name: string }): string {
  return format.replace(/%(?:%|[-+# 0]*\d*(?:\.\d+)?([wvsqd]))/g, (whole, verb: string | undefined) => {
    if (whole === '%%') return '%';
    switch (verb) {
      case 'w':
        return cause;
      case 'q':
        return `"${object.name}"`;
      case 'd':
        return '1';
      default:
        return `${object.namespace}/${object.name}`;
    }
  });
}

export class World {
  private readonly cm: CompiledModel;
  private readonly random: Random;
  private readonly faults: readonly FaultSpec[];
  private readonly faultOps: { op: number; outcome: number; cause: string }[][];
  private readonly phasedOrder: number[];
  private readonly objects: ObjectState[] = [];
  private readonly schedule = new Schedule();
  private readonly startMs: number;
  private readonly endMs: number;
  private readonly transientRate: number;
  private readonly namespace: string;

  constructor(readonly options: WorldOptions) {
    this.cm = compileModel(options.model);
    this.random = new Random(options.seed);
    this.faults = options.faults ?? faultsFor(options.model);
    this.faultOps = this.faults.map((f) =>
      f.effects.flatMap((e) => {
        const op = this.cm.opIndex.get(e.op);
        return op === undefined ? [] : [{ op, outcome: e.outcome === 'stop' ? STOP : ERROR, cause: e.cause }];
      }),
    );
    this.phasedOrder = this.cm.ops.map((_, i) => i).filter((i) => this.cm.phasedPosition[i]! >= 0);
    this.phasedOrder.sort((a, b) => this.cm.phasedPosition[a]! - this.cm.phasedPosition[b]!);
    this.startMs = options.startMs ?? DEFAULT_START_MS;
    this.endMs = this.startMs + options.durationMs;
    this.transientRate = options.transientErrorRate ?? 0.0002;
    this.namespace = options.namespace ?? 'clusters';
    for (let i = 0; i < options.objects; i++) {
      const skips = new Uint8Array(this.cm.ops.length);
      for (const [op, share] of HYPERSHIFT_SKIPS) {
        const index = this.cm.opIndex.get(op);
        if (index !== undefined && this.random.chance(share)) skips[index] = 1;
      }
      const observe = options.observe === 'mixed' ? (i % 2 === 0 ? 'sequential' : 'phased') : options.observe;
      this.objects.push({
        name: `hc-${String(i).padStart(4, '0')}`,
        observe,
        skips,
        activeUntil: new Float64Array(this.faults.length),
        generation: 1,
        failures: 0,
        lastMs: this.startMs,
      });
      this.schedule.push(this.startMs + this.random.next() * 30_000, i);
    }
  }

  /** Attempts in time order until the duration ends. */
  *attempts(): Generator<AttemptRecord> {
    for (;;) {
      const next = this.schedule.pop();
      if (!next || next[0] >= this.endMs) return;
      const [timeMs, index] = next;
      const object = this.objects[index]!;
      const record = this.reconcile(object, timeMs);
      const failed = record.operations.some((o) => o.outcome === 'error');
      const stopped = record.operations.some((o) => o.outcome === 'stop');
      object.failures = failed ? object.failures + 1 : 0;
      const delay = failed
        ? Math.min(BACKOFF_MAX_MS, BACKOFF_MIN_MS * 2 ** (object.failures - 1)) * (0.8 + 0.4 * this.random.next())
        : this.random.exponential(stopped ? HEALTHY_MEAN_MS * 2 : HEALTHY_MEAN_MS);
      this.schedule.push(timeMs + Math.max(1, delay), index);
      yield record;
    }
  }

  private reconcile(object: ObjectState, timeMs: number): AttemptRecord {
    const hours = (timeMs - object.lastMs) / 3_600_000;
    object.lastMs = timeMs;
    if (this.random.chance(1 - Math.exp(-SPEC_CHANGES_PER_HOUR * hours))) object.generation++;
    const n = this.cm.ops.length;
    const outcomes = new Uint8Array(n);
    const causes = new Map<number, string>();
    for (let op = 0; op < n; op++) if (object.skips[op] === 1) outcomes[op] = SKIP;
    this.faults.forEach((fault, f) => {
      if (object.activeUntil[f]! <= timeMs) {
        object.activeUntil[f] = 0;
        if (this.random.chance(1 - Math.exp(-fault.onsetPerHour * hours))) object.activeUntil[f] = timeMs + this.random.exponential(fault.meanMinutes * 60_000);
      }
      if (object.activeUntil[f]! > timeMs) {
        for (const e of this.faultOps[f]!) {
          outcomes[e.op] = e.outcome;
          causes.set(e.op, e.cause);
        }
      }
    });
    for (let op = 0; op < n; op++) {
      if (outcomes[op] === OK && this.random.chance(this.transientRate)) {
        outcomes[op] = ERROR;
        causes.set(
          op,
          `Operation cannot be fulfilled on hostedclusters.hypershift.openshift.io "${object.name}": the object has been modified; please apply your changes to the latest version and try again`,
        );
      }
    }
    // each error's text first: which of the op's rules apply (its variant) is read from it, as the engine does
    const errors = new Map<number, string>();
    const variants = new Uint8Array(n);
    for (let op = 0; op < n; op++) {
      if (outcomes[op] !== ERROR) continue;
      const cause = (causes.get(op) ?? 'simulated failure').replaceAll('{name}', object.name).replaceAll('{namespace}', this.namespace);
      const text = formatError(simulatedFormat(this.cm.model.operations[op]!, object.observe), cause, { namespace: this.namespace, name: object.name });
      errors.set(op, text);
      variants[op] = variantOfText(this.cm, op, text);
    }
    const run = object.observe === 'sequential' ? runSequential(this.cm, outcomes, variants) : runPhased(this.cm, outcomes, variants);
    const order = object.observe === 'sequential' ? this.cm.sequentialOrder : this.phasedOrder;
    const operations: OperationRecord[] = [];
    for (const op of order) {
      if (run.ran[op] !== 1) continue;
      const code = outcomes[op]!;
      const durationSeconds = Math.round(this.random.exponential(0.004) * 1e6) / 1e6;
      if (code === ERROR) operations.push({ name: this.cm.ops[op]!, outcome: 'error', error: errors.get(op)!, durationSeconds });
      else operations.push({ name: this.cm.ops[op]!, outcome: code === STOP ? 'stop' : code === SKIP ? 'skip' : 'ok', durationSeconds });
    }
    return {
      time: new Date(timeMs).toISOString(),
      timeMs,
      controller: this.cm.model.controller,
      object: `${this.namespace}/${object.name}`,
      generation: object.generation,
      loop: object.observe,
      operations,
      origin: { source: 'simulator' },
    };
  }
}
