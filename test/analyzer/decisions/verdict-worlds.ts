/**
 * The verdict's acceptance harness: a planted world (planted-world.ts) decided the way `report --format json` decides
 * it, optionally re-run at regular looks on the growing journal (a canary whose report is re-run every few hours),
 * and read back from the report's JSON only (analyzer/decisions/json.ts, the public contract), never from the
 * decisions' internals. The acceptance tests (verdict-acceptance.test.ts) and the power tables (bench/power.ts) share
 * it, so both measure the same thing.
 */
import { Analyzer } from '../../../analyzer/analyzer.js';
import { DecisionEvidence } from '../../../analyzer/decisions/evidence.js';
import { decisionsJson } from '../../../analyzer/decisions/json.js';
import { decisionReport } from '../../../analyzer/decisions/decide.js';
import { DEFAULT_THRESHOLDS } from '../../../analyzer/decisions/thresholds.js';
import { PLANTED_START_MS, plantedWorld, type PlantedWorldOptions } from './planted-world.js';

/** The first reason of a verdict held back by the sample-ratio check (attempts, objects and lost lines per loop). */
export const SAMPLE_RATIO_CHECK = 'sample-ratio';
/** The first reason of a verdict held back by the population-balance check (ops both loops run identically differ). */
export const POPULATION_BALANCE_CHECK = 'population-imbalance';

export interface Reason {
  readonly kind: string;
  readonly status: string;
  readonly message: string;
}

/** What a reader of the report's JSON sees of one controller's verdict. */
export interface VerdictView {
  readonly status: 'ready' | 'not-ready' | 'inconclusive';
  readonly reasons: readonly Reason[];
  /** The loop comparison's finding per op. */
  readonly findings: ReadonlyMap<string, string>;
}

export interface Look {
  /** Hours of journal the look had. */
  readonly hours: number;
  readonly view: VerdictView;
}

export interface WorldRun {
  readonly attempts: number;
  /** One per look, in time order; the last is the report over the whole journal. */
  readonly looks: readonly Look[];
  readonly final: VerdictView;
}

interface ControllerJson {
  readonly verdict: VerdictView['status'];
  readonly reasons: readonly Reason[];
  readonly loopComparison: readonly { readonly operation: string; readonly finding: string }[];
}

function viewOf(json: Record<string, unknown>): VerdictView {
  const controllers = json.controllers as readonly ControllerJson[];
  if (controllers.length !== 1) throw new Error(`expected one controller in the report, got ${controllers.length}`);
  const c = controllers[0]!;
  return {
    status: c.verdict,
    reasons: c.reasons.map((r) => ({ kind: r.kind, status: r.status, message: r.message })),
    findings: new Map(c.loopComparison.map((o) => [o.operation, o.finding])),
  };
}

/**
 * Decides the world at every `lookEveryMs` of its journal and at its end (by default only at its end): each look is
 * the report a person would get by running `report` on the journal written so far.
 */
export function runWorld(o: PlantedWorldOptions, lookEveryMs: number = o.durationMs): WorldRun {
  const analyzer = new Analyzer([o.model]);
  const evidence = new DecisionEvidence();
  analyzer.listen(evidence);
  const start = o.startMs ?? PLANTED_START_MS;
  const end = start + o.durationMs;
  const looks: Look[] = [];
  const look = (atMs: number): void => {
    looks.push({ hours: (atMs - start) / 3_600_000, view: viewOf(decisionsJson(decisionReport(analyzer, evidence, DEFAULT_THRESHOLDS))) });
  };
  let next = start + lookEveryMs;
  let attempts = 0;
  for (const r of plantedWorld(o)) {
    for (; r.timeMs >= next && next < end; next += lookEveryMs) look(next);
    analyzer.attempt(r);
    attempts++;
  }
  for (; next < end; next += lookEveryMs) look(next);
  look(end);
  return { attempts, looks, final: looks.at(-1)!.view };
}

/** `not-ready`, with a deciding reason that names the op, and the loop comparison finding it worse. */
export function namesWorse(v: VerdictView, op: string): boolean {
  return v.status === 'not-ready' && v.reasons.some((r) => r.status === 'not-ready' && r.message.includes(op)) && v.findings.get(op) === 'worse-under-phased';
}

/** The first look (its hours) at which the verdict named the op worse, or null. */
export function foundAt(run: WorldRun, op: string): number | null {
  return run.looks.find((l) => namesWorse(l.view, op))?.hours ?? null;
}

/** The deciding reasons, as `kind` (the ones a `not-ready` rests on). */
export function decidingKinds(v: VerdictView): string[] {
  return v.reasons.filter((r) => r.status === 'not-ready').map((r) => r.kind);
}
