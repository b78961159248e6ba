/**
 * The decisions report as a document: verdict, facts, charts and tables per controller, in reading order. The HTML
 * and Markdown renderers draw this one document, so both carry the same content in the same order.
 */
import type { GroupDecision } from '../../decisions/classification.js';
import type { PairDecision } from '../../decisions/ordering.js';
import type { ControllerDecisions, DecisionReport } from '../../decisions/report.js';
import type { RolloutStep } from '../../decisions/rollout.js';
import type { VerdictReason, VerdictStatus } from '../../decisions/verdict.js';
import { count, percent, plural, points, pValue, span } from '../../decisions/wording.js';
import { formatDuration } from '../duration.js';
import type { ControllerSummary } from '../summary.js';
import { blockedByChart, divergenceChart, failureRateChart, orderingChart, recreationChart, starvationChart, type Chart, type RecreationDurations } from './charts.js';

export type Tone = 'bad' | 'good' | 'unknown';
export type Cell = string | { readonly text: string; readonly tone: Tone };

export interface Table {
  readonly head: readonly string[];
  readonly rows: readonly (readonly Cell[])[];
  /** Right-aligned (numeric) columns. */
  readonly numeric: readonly number[];
  /** Columns of prose that may wrap (the others stay on one line). */
  readonly wide?: readonly number[];
}

export interface Section {
  readonly id: string;
  readonly title: string;
  readonly intro: readonly string[];
  readonly table: Table;
  /** Rows kept out of the way: behind "show" in HTML, counted in Markdown. */
  readonly rest?: { readonly summary: string; readonly table: Table };
}

export interface ControllerDocument {
  readonly id: string;
  readonly heading: string;
  readonly verdict: { readonly status: VerdictStatus; readonly headline: string; readonly deciding: readonly VerdictReason[]; readonly notes: readonly VerdictReason[] };
  readonly facts: readonly string[];
  readonly charts: readonly Chart[];
  readonly sections: readonly Section[];
}

export interface ReportDocument {
  readonly title: string;
  readonly controllers: readonly ControllerDocument[];
  /** Facts about input that could not be used. */
  readonly input: readonly string[];
}

export interface DocumentOptions {
  /** Recreation durations from the recreation tracker; not per controller, so charted once (first controller). */
  readonly recreations?: readonly RecreationDurations[];
}

const TONE: Record<string, Tone> = { dependent: 'bad', safe: 'good', inconclusive: 'unknown', 'candidate-critical': 'bad', 'candidate-non-critical': 'good', consistent: 'good', move: 'good', wait: 'unknown', 'keep-critical': 'bad' };
const badge = (text: string): Cell => ({ text, tone: TONE[text] ?? 'unknown' });
const categoryName = (c: string): string => (c === 'nonCritical' ? 'non-critical' : c);

export function reportDocument(report: DecisionReport, options: DocumentOptions = {}): ReportDocument {
  const controllers = report.controllers.map((d, i) => {
    const summary = report.summary.controllers.find((s) => s.controller === d.controller)!;
    return controllerDocument(summary, d, i === 0 ? options.recreations : undefined, i === 0);
  });
  const input = report.summary.input;
  const facts =
    input.rejected === 0
      ? []
      : [`${count(input.rejected)} input lines rejected (${Object.entries(input.rejectedByReason).map(([r, n]) => `${r}: ${count(n)}`).join(', ')}); the first: ${input.rejectionSample.slice(0, 3).map((r) => `${r.where} ${r.reason}`).join('; ')}`];
  return { title: 'reconcile-shadow: switch readiness', controllers, input: facts };
}

function headline(status: VerdictStatus, d: ControllerDecisions, s: ControllerSummary): string {
  const seen = `${count(s.attempts.total)} attempts from ${plural(s.objects, 'object')} over ${formatDuration(s.window.seconds)}`;
  if (status === 'ready') {
    return `Ready to switch to the phased loop: over ${seen} it would have unblocked ${count(d.verdict.unblockedOps)} op-runs, no reordered pair shows dependence and the non-critical groups that failed were judged consistent.`;
  }
  if (status === 'not-ready') return `Not ready to switch to the phased loop: the data over ${seen} shows harm (below).`;
  return `Inconclusive: no harm seen over ${seen}, but not enough evidence to call the switch safe.`;
}

function controllerDocument(s: ControllerSummary, d: ControllerDecisions, recreations: readonly RecreationDurations[] | undefined, withRecreations: boolean): ControllerDocument {
  const v = d.verdict;
  const deciding = v.reasons.filter((r) => r.status === v.status);
  const pairs = d.ordering.reordered;
  const by = (status: string): number => pairs.filter((p) => p.status === status).length;
  const facts = [
    `attempts: ${count(s.attempts.total)} (sequential ${count(s.attempts.byObservedModel.sequential)}, phased ${count(s.attempts.byObservedModel.phased)}) from ${plural(s.objects, 'object')}`,
    `window: ${s.window.first ?? '-'} .. ${s.window.last ?? '-'} (${formatDuration(s.window.seconds)})`,
    `the phased loop would have unblocked ${count(v.unblockedOps)} op-runs and newly blocked ${count(v.newlyBlockedOps)} (in ${count(v.newlyBlockedAttempts)} attempts)`,
    `reordered pairs: ${pairs.length} (${by('dependent')} dependent, ${by('safe')} safe, ${by('inconclusive')} inconclusive); ${plural(d.ordering.tested, 'pair')} had enough data to be tested`,
    `noise floor: ${percent(d.noiseFloor.overall)} of same-generation consecutive outcomes flipped`,
    ...(s.attempts.byObservedModel.phased === 0 ? ['no attempt ran the phased loop: only such attempts show what happens after a failure, so ordering and classification evidence needs some objects on the phased loop'] : []),
    ...(d.forgottenObjects > 0 ? [`${count(d.forgottenObjects)} objects were forgotten past the memory bound; their later attempts counted as new observations`] : []),
  ];
  const charts = [failureRateChart(s), divergenceChart(s), blockedByChart(s), starvationChart(d.starvation), orderingChart(d.ordering), ...(withRecreations ? [recreationChart(recreations)] : [])];
  return {
    id: s.controller,
    heading: `${s.controller} (model ${s.model})`,
    verdict: { status: v.status, headline: headline(v.status, d, s), deciding, notes: v.reasons.filter((r) => r.status !== v.status) },
    facts,
    charts,
    sections: [rolloutSection(d.rollout), reorderedSection(pairs), sameOrderSection(d.ordering.dependentSameOrder), classificationSection(d.groups), noiseSection(d), operationsSection(s), blockedBySection(s), thresholdsSection(d)],
  };
}

function rolloutSection(steps: readonly RolloutStep[]): Section {
  return {
    id: 'rollout',
    title: 'Rollout plan: one group to non-critical at a time (PR 3+), safest first',
    intro: [
      'Starting from every group critical (today’s behaviour), each `move` step is one small, revertable pull request; collect production evidence between steps. ' +
        '`partial` evidence: a critical group’s failure blocks the blockable groups, so only the ops that still run after it were checked.',
    ],
    table: {
      head: ['#', 'step', 'group', 'model', 'action', 'evidence', 'frees (op-runs)', 'per day', 'most often', 'why'],
      numeric: [0, 6, 7],
      wide: [8, 9],
      rows: steps.map((r) => [
        String(r.rank),
        r.pr ?? '-',
        r.group,
        categoryName(r.category),
        badge(r.action),
        r.evidence,
        count(r.unblocked.ops),
        r.unblockedPerDay === null ? '-' : count(Math.round(r.unblockedPerDay)),
        r.unblocked.top.map((t) => t.name).join(', ') || '-',
        r.why,
      ]),
    },
  };
}

const PAIR_HEAD = ['runs first', 'then', 'after failure', 'after success', 'difference', 'noise floor', 'q', 'status', 'why'];
const PAIR_NUMERIC = [2, 3, 4, 5, 6];
const PAIR_WIDE = [8];

function pairRow(p: PairDecision): Cell[] {
  const { a, b, c, d } = p.table;
  return [p.first, p.then, a + b === 0 ? '-' : `${count(a)}/${count(a + b)}`, c + d === 0 ? '-' : `${count(c)}/${count(c + d)}`, points(p.riskDifference), percent(p.noiseFloor), pValue(p.q), badge(p.status), p.why];
}

function reorderedSection(pairs: readonly PairDecision[]): Section {
  const shown = pairs.filter((p) => p.status !== 'inconclusive' || p.table.a + p.table.b > 0);
  const rest = pairs.filter((p) => !shown.includes(p));
  const untestable = rest.filter((p) => !p.followsFailure).length;
  return {
    id: 'reordered-pairs',
    title: 'Ordering evidence: pairs the phased loop runs in a new order',
    intro: [
      'For each pair, in the phased loop’s order: how often the later op failed in attempts where the earlier one failed, and where it succeeded. ' +
        'An attempt counts only when both ops succeeded in the object’s previous attempt, so each count is a change from a healthy state (a stuck fault counts once). ' +
        'Dependent pairs make the reordering risky.',
      'One-sided Fisher exact test, Benjamini–Hochberg q over all tested pairs; a pair is tested only with enough observations, and a difference within the later op’s noise floor is not evidence.',
    ],
    table: { head: PAIR_HEAD, numeric: PAIR_NUMERIC, wide: PAIR_WIDE, rows: shown.map(pairRow) },
    ...(rest.length > 0
      ? { rest: { summary: `${plural(rest.length, 'more pair')} never seen after the first op failed (${untestable} of them cannot be: the phased loop never runs the later op after that failure)`, table: { head: PAIR_HEAD, numeric: PAIR_NUMERIC, wide: PAIR_WIDE, rows: rest.map(pairRow) } } }
      : {}),
  };
}

function sameOrderSection(pairs: readonly PairDecision[]): Section {
  return {
    id: 'same-order-dependence',
    title: 'Dependence between ops both loops run in the same order',
    intro: ['Not an ordering risk, but the evidence behind the classification check: the later op fails more often after the earlier one failed.'],
    table: { head: PAIR_HEAD, numeric: PAIR_NUMERIC, wide: PAIR_WIDE, rows: pairs.map(pairRow) },
  };
}

function classificationSection(groups: readonly GroupDecision[]): Section {
  return {
    id: 'classification',
    title: 'Classification check: critical vs non-critical',
    intro: [
      'Non-critical groups followed by downstream failures are candidates for critical; critical groups whose failures precede none are candidates for non-critical (which frees more work). ' +
        'failed: attempts with a failure of the group; runs: distinct failure runs; judged: runs with later ops observed after the failure; ' +
        'blocks: blockable groups the phased loop skipped after its failure; seq. skipped: op-runs the sequential loop skipped after it.',
    ],
    table: {
      head: ['group', 'category', 'failed', 'runs', 'judged', 'blocks (phased)', 'seq. skipped', 'status', 'why'],
      numeric: [2, 3, 4, 6],
      wide: [8],
      rows: groups.map((g) => [
        g.group,
        categoryName(g.category) + (g.blockable ? ', blockable' : ''),
        count(g.failedAttempts),
        count(g.failureRuns),
        count(g.judgedRuns),
        g.blocks.length === 0 ? '-' : `${plural(g.blocks.length, 'group')}, ≤ ${count(Math.max(...g.blocks.map((b) => b.attempts)))} attempts`,
        count(g.sequentialSkippedOps),
        badge(g.status),
        g.why,
      ]),
    },
  };
}

function noiseSection(d: ControllerDecisions): Section {
  const n = d.noiseFloor;
  return {
    id: 'noise-floor',
    title: 'Noise floor (A/A): outcome flips with no spec change',
    intro: [
      `Consecutive attempts of one object with the same generation: ${count(n.flips)} flips in ${count(n.comparisons)} op comparisons (${percent(n.overall)}). ` +
        'A later op’s failure-rate increase no larger than its own flip rate does not count as dependence.',
    ],
    table: { head: ['operation', 'comparisons', 'flips', 'rate'], numeric: [1, 2, 3], rows: n.operations.map((o) => [o.op, count(o.comparisons), count(o.flips), percent(o.rate)]) },
  };
}

function operationsSection(s: ControllerSummary): Section {
  const active = s.operations.filter((o) => o.observed > 0 || o.unblocked > 0 || o.newlyBlocked > 0);
  return {
    id: 'operations',
    title: 'Operations',
    intro: ['predicted: attempts where the op’s own outcome was predicted from history, not observed.'],
    table: {
      head: ['operation', 'group', 'observed', 'failures', 'failure rate', 'unblocked', 'newly blocked', 'predicted', 'top blockers', 'longest starvation'],
      numeric: [2, 3, 4, 5, 6, 7, 9],
      wide: [8],
      rows: active.map((o) => [
        o.name,
        o.group ?? (o.category === 'sequentialOnly' ? '(sequential only)' : '(fail-fast)'),
        count(o.observed),
        count(o.outcomes.error),
        percent(o.failureRate),
        count(o.unblocked),
        count(o.newlyBlocked),
        count(o.predicted),
        o.topBlockers.map((b) => `${b.blocker} (${count(b.count)})`).join(', ') || '-',
        o.longestStarvationSeconds > 0 ? formatDuration(o.longestStarvationSeconds) : '-',
      ]),
    },
  };
}

function blockedBySection(s: ControllerSummary): Section {
  return {
    id: 'blocked-by',
    title: 'Blocked by (phased loop: failed critical group → skipped blockable group)',
    intro: [],
    table: { head: ['blocker', 'blocked', 'attempts'], numeric: [2], rows: s.blockedBy.map((b) => [b.blocker, b.blocked, count(b.count)]) },
  };
}

function thresholdsSection(d: ControllerDecisions): Section {
  const t = d.thresholds;
  const rows: [string, string, string][] = [
    ['falseDiscoveryRate', String(t.falseDiscoveryRate), 'Benjamini–Hochberg q over all pair tests'],
    ['minFailedObservations', String(t.minFailedObservations), 'observations after the first op failed before a pair is tested'],
    ['minBaselineObservations', String(t.minBaselineObservations), 'observations after the first op succeeded before a pair is tested'],
    ['safeRiskDifference', String(t.safeRiskDifference), 'largest failure-rate increase a safe pair may show (plus the noise floor)'],
    ['materialFailures', String(t.materialFailures), 'failure runs that make a group or pair matter for the verdict'],
    ['minAttempts', String(t.minAttempts), ''],
    ['minObjects', String(t.minObjects), ''],
    ['minWindowMs', span(t.minWindowMs), ''],
    ['maxNewlyBlockedRate', String(t.maxNewlyBlockedRate), 'share of attempts with newly blocked work tolerated'],
  ];
  return { id: 'thresholds', title: 'Thresholds used', intro: [], table: { head: ['threshold', 'value', 'meaning'], numeric: [], wide: [2], rows } };
}
