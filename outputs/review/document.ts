/**
 * The decisions report as a document: verdict, facts, charts and tables per controller, in reading order. The HTML
 * and Markdown renderers draw this one document, so both carry the same content in the same order.
 */
import type { GroupDecision } from '../../analyzer/decisions/classification.js';
import type { LoopComparison, OperationComparison } from '../../analyzer/decisions/loop-comparison.js';
import type { NoiseFloor } from '../../analyzer/decisions/noise.js';
import type { PairDecision } from '../../analyzer/decisions/ordering.js';
import type { ControllerDecisions, DecisionReport, LoopPopulation } from '../../analyzer/decisions/decide.js';
import type { RolloutPlan } from '../../analyzer/decisions/rollout.js';
import type { StarvationComparison } from '../../analyzer/decisions/starvation-comparison.js';
import { THRESHOLD_DOCS, type DecisionThresholds } from '../../analyzer/decisions/thresholds.js';
import type { RuleOutcome, Section } from '../../analyzer/decisions/rules/rule.js';
import type { VerdictReason, VerdictStatus } from '../../analyzer/decisions/verdict.js';
import { count, eValue, percent, plural, points, pValue, span } from '../../analyzer/decisions/wording.js';
import { formatDuration } from '../../lib/duration.js';
import type { Cell, Table, Tone } from '../../lib/table.js';
import { operationsTable } from '../../analyzer/summary/render.js';
import type { ControllerSummary } from '../../analyzer/summary/types.js';
import type { LoopKind } from '../../model/types.js';
import {
  blockedByChart,
  divergenceChart,
  loopComparisonChart,
  orderingChart,
  recreationChart,
  starvationChart,
  type Chart,
  type RecreationDurations,
} from './charts.js';

export type { Section } from '../../analyzer/decisions/rules/rule.js';

export interface ControllerDocument {
  readonly id: string;
  readonly heading: string;
  readonly verdict: {
    readonly status: VerdictStatus;
    readonly headline: string;
    readonly deciding: readonly VerdictReason[];
    readonly notes: readonly VerdictReason[];
  };
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
  /** Facts about where the input came from, first among the input's (the fleet: the peers it covers). */
  readonly inputFacts?: readonly string[];
}

const TONE: Record<string, Tone> = {
  dependent: 'bad',
  safe: 'good',
  inconclusive: 'unknown',
  'should-be-critical': 'bad',
  ok: 'good',
  'worse-under-phased': 'bad',
  'better-under-phased': 'good',
  same: 'good',
  'starved-under-phased': 'bad',
  move: 'good',
  wait: 'unknown',
  'keep-critical': 'bad',
  'fix first': 'bad',
  'not proposed': 'unknown',
};
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
      : [
          `${count(input.rejected)} input lines rejected (${Object.entries(input.rejectedByReason)
            .map(([r, n]) => `${r}: ${count(n)}`)
            .join(', ')}); the first: ${input.rejectionSample
            .slice(0, 3)
            .map((r) => `${r.where} ${r.reason}`)
            .join('; ')}`,
        ];
  return { title: 'reconcile-shadow: switch readiness', controllers, input: [...(options.inputFacts ?? []), ...facts] };
}

function headline(status: VerdictStatus, d: ControllerDecisions, s: ControllerSummary): string {
  const seen = `${count(s.attempts.total)} attempts from ${plural(s.objects, 'object')} over ${formatDuration(s.window.seconds)}`;
  if (status === 'ready') {
    return (
      `Ready to switch to the phased loop: over ${seen}, no op fails more or waits longer under it, no reordered pair or non-critical group shows harm, ` +
      `and it would have run ${count(d.verdict.benefit.creditedOpRuns)} more op-runs that succeed.`
    );
  }
  if (status === 'not-ready') return `Not ready to switch to the phased loop: the data over ${seen} shows harm (below).`;
  return `Inconclusive: not enough evidence over ${seen} to call the switch safe or harmful; the first reason says what is missing.`;
}

function loopLine(loop: string, p: LoopPopulation): string {
  if (p.attempts === 0) return `${loop}: no attempt`;
  return `${loop}: ${count(p.attempts)} attempts from ${plural(p.objects, 'object')} over ${formatDuration(p.windowSeconds)}`;
}

function controllerDocument(
  s: ControllerSummary,
  d: ControllerDecisions,
  recreations: readonly RecreationDurations[] | undefined,
  withRecreations: boolean,
): ControllerDocument {
  const v = d.verdict;
  const b = v.benefit;
  const deciding = v.reasons.filter((r) => r.status === v.status);
  const pairs = d.ordering.reordered;
  const byPair = (status: string): number => pairs.filter((p) => p.status === status).length;
  const ops = d.comparison.operations;
  const byOp = (finding: string): number => ops.filter((o) => o.finding === finding).length;
  const transitions =
    d.populations.sequential.attempts + d.populations.phased.attempts - d.populations.sequential.usedAttempts - d.populations.phased.usedAttempts;
  const facts = [
    `${loopLine('sequential', d.populations.sequential)}; ${loopLine('phased', d.populations.phased)}; ${plural(d.populations.objectsInBothLoops, 'object')} seen under both`,
    `window: ${s.window.first ?? '-'} .. ${s.window.last ?? '-'} (${formatDuration(s.window.seconds)})`,
    `the phased loop would have run ${count(b.unblockedOpRuns)} op-runs the sequential loop skipped: ${count(b.creditedOpRuns)} credited (would have succeeded), ${count(b.wouldFail)} would have failed, ${count(b.fromWorseOps)} of or behind an op that fails more under it`,
    `in ${count(v.newlyBlockedAttempts)} attempts the phased loop would have skipped an op the sequential loop ran: by design while a critical group fails, and harm only as time (see starvation)`,
    `loop comparison: ${plural(ops.length, 'op')} (${byOp('worse-under-phased')} worse under the phased loop, ${byOp('better-under-phased')} better, ${byOp('same')} the same, ${byOp('inconclusive')} inconclusive)`,
    `reordered pairs: ${pairs.length} (${byPair('dependent')} dependent, ${byPair('safe')} safe, ${byPair('inconclusive')} inconclusive); ${plural(d.ordering.tested, 'pair table')} had enough data to be tested`,
    `noise floor: ${percent(d.noiseFloor.sequential.overall)} (sequential), ${percent(d.noiseFloor.phased.overall)} (phased) of same-generation consecutive outcomes flipped`,
    ...(s.operatorBuild ? [`operator build: ${s.operatorBuild.name}${s.operatorBuild.statement === null ? '' : ` (${s.operatorBuild.statement})`}`] : []),
    ...(transitions > 0 ? [`${count(transitions)} status transitions list only failing ops and were left out of the rates`] : []),
    ...(d.forgottenObjects > 0
      ? [`${count(d.forgottenObjects)} objects were forgotten past the memory bound; their later attempts counted as new objects`]
      : []),
  ];
  const charts = [
    loopComparisonChart(d.comparison),
    divergenceChart(s),
    blockedByChart(s),
    starvationChart(d.starvation),
    orderingChart(d.ordering),
    ...(withRecreations ? [recreationChart(recreations)] : []),
  ];
  return {
    id: s.controller,
    heading: `${s.controller} (model ${s.model})`,
    verdict: { status: v.status, headline: headline(v.status, d, s), deciding, notes: v.reasons.filter((r) => r.status !== v.status) },
    facts,
    charts,
    sections: [
      rulesSection(v.rules),
      rolloutSection(d.rollout),
      loopComparisonSection(d.comparison),
      starvationSection(d.starvationComparison, d.thresholds),
      reorderedSection(pairs),
      otherDependenceSection(d.ordering.dependentOther),
      classificationSection(d.groups),
      ...v.rules.flatMap((r) => (r.section ? [r.section] : [])),
      noiseSection(d.noiseFloor),
      operationsSection(s),
      blockedBySection(s),
      thresholdsSection(d.thresholds),
    ],
  };
}

const RULE_TONE: Record<string, Tone> = { pass: 'good', fail: 'bad' };

function rulesSection(rules: readonly RuleOutcome[]): Section {
  const measured = (r: RuleOutcome): string =>
    r.measurements
      .slice(0, 6)
      .map((m) => `${m.name}: ${show(m.value)}${m.threshold === null ? '' : ` (bar ${show(m.threshold)})`}`)
      .join('; ') + (r.measurements.length > 6 ? `; and ${r.measurements.length - 6} more` : '');
  return {
    id: 'rules',
    title: 'Rules: what each decided, on what',
    intro: [
      'Every rule of the verdict, in the order it reads them: the checks of the data, the gates, the harms and the coverage. A failed check or gate makes the verdict inconclusive whatever else is seen.',
    ],
    table: {
      head: ['rule', 'role', 'result', 'measured (bar)', 'why'],
      numeric: [],
      wide: [3, 4],
      rows: rules.map((r) => [
        r.rule,
        r.role,
        { text: r.status, tone: r.status === 'fail' && r.role !== 'harm' && r.reasons.every((x) => !x.harm) ? 'unknown' : RULE_TONE[r.status]! },
        measured(r),
        r.reasons.length > 0 ? r.reasons.map((x) => x.message).join(' ') : r.explanation,
      ]),
    },
  };
}

function show(v: number | string | null): string {
  if (v === null) return '-';
  if (typeof v === 'string') return v;
  if (Number.isInteger(v)) return count(v);
  return Math.abs(v) >= 1000 ? eValue(v) : v.toPrecision(3);
}

function rolloutSection(plan: RolloutPlan): Section {
  const perDay =
    plan.perDayBasis === 'measured'
      ? 'per day'
      : plan.perDayBasis === 'extrapolated'
        ? `per day (extrapolated from ${formatDuration(plan.windowSeconds)})`
        : 'per day';
  const rows: Cell[][] = [
    ...plan.fixFirst.map((f) => ['-', f.subject, '-', badge('fix first'), f.kind, '-', '-', '-', f.why]),
    ...plan.steps.map((r) => [
      r.step === null ? '-' : String(r.step),
      r.group,
      categoryName(r.category),
      badge(r.action),
      r.evidence,
      count(r.frees.ops),
      r.freesPerDay === null ? '-' : count(Math.round(r.freesPerDay)),
      r.frees.top.map((t) => t.name).join(', ') || '-',
      r.why,
    ]),
    ...plan.notProposed.map((n) => ['-', n.group, categoryName(n.category), badge('not proposed'), '-', '0', '-', '-', n.reason]),
  ];
  return {
    id: 'rollout',
    title: 'Rollout plan: one group to non-critical at a time, safest first',
    intro: [
      `Starting from ${plan.startsFrom}. Each \`move\` step is one small, revertable change; collect production evidence between steps. ` +
        '`fix first`: the phased loop’s order harms these before any step. `partial` evidence: a critical group’s failure blocks the blockable groups, so only the ops that still run after it were checked. ' +
        'frees: op-runs with an ok outcome that only the group’s category decides.',
    ],
    table: { head: ['step', 'group', 'model', 'action', 'evidence', 'frees (op-runs)', perDay, 'most often', 'why'], numeric: [0, 5, 6], wide: [7, 8], rows },
  };
}

const COMPARISON_HEAD = [
  'operation',
  'sequential',
  'phased',
  'difference',
  'margin',
  '95 % sequence',
  'e (bar)',
  'fixed-sample q',
  'noise floor',
  'finding',
  'why',
];

function comparisonRow(o: OperationComparison): Cell[] {
  const side = (x: OperationComparison['sequential']): string => (x.runs === 0 ? '-' : `${count(x.failures)}/${count(x.runs)} (${percent(x.rate)})`);
  return [
    o.operation,
    side(o.sequential),
    side(o.phased),
    points(o.difference),
    `±${percent(o.margin)}`,
    o.interval ? `${points(o.interval.low)} .. ${points(o.interval.high)}` : '-',
    o.e === null ? '-' : `${eValue(o.e)} (${eValue(o.eBar)})`,
    pValue(o.fixedSample.q),
    percent(o.noiseFloor),
    badge(o.finding),
    o.why,
  ];
}

function loopComparisonSection(c: LoopComparison): Section {
  const shown = c.operations.filter((o) => o.finding !== 'same' || o.material);
  const rest = c.operations.filter((o) => !shown.includes(o));
  const table = (rows: readonly OperationComparison[]): Table => ({
    head: COMPARISON_HEAD,
    numeric: [1, 2, 3, 4, 5, 6, 7, 8],
    wide: [10],
    rows: rows.map(comparisonRow),
  });
  return {
    id: 'loop-comparison',
    title: 'Loop comparison: does an op fail more under the phased loop?',
    intro: [
      'Each op’s failure rate under each loop, from that loop’s attempts only, over the runs both loops would make, counted from a healthy state (a stuck fault counts once). ' +
        'Anytime-valid: a two-proportion e-value on counts divided by each loop’s design effect (the spread of the rate between objects), e-BH over the ops, and a 95 % confidence sequence, all safe to re-run as data grows; ' +
        '`worse` needs an e-BH discovery beyond the margin (relative to the sequential rate), `same` the sequence within the margin and not wholly on the harmful side. ' +
        'Fisher’s exact q is the fixed-sample view; the noise floor is information.',
      ...(c.unavailable ? [`Not compared: ${c.unavailable}.`] : []),
    ],
    table: table(shown),
    ...(rest.length > 0
      ? { rest: { summary: `${plural(rest.length, 'more op')} the same under both loops, none failing often enough to matter`, table: table(rest) } }
      : {}),
  };
}

function starvationRow(o: StarvationComparison['operations'][number]): Cell[] {
  return [
    o.operation,
    percent(o.phasedShare),
    percent(o.byDesignShare),
    percent(o.sequentialShare),
    points(o.extraShare),
    o.phasedLongestSeconds > 0 ? formatDuration(o.phasedLongestSeconds) : '-',
    o.sequentialLongestSeconds > 0 ? formatDuration(o.sequentialLongestSeconds) : '-',
    badge(o.finding),
    o.why,
  ];
}

function starvationSection(c: StarvationComparison, t: DecisionThresholds): Section {
  const head = [
    'operation',
    'phased keeps it',
    'of which by design',
    'sequential keeps it',
    'extra under phased',
    'longest (phased)',
    'longest (sequential)',
    'finding',
    'why',
  ];
  const table = (rows: StarvationComparison['operations']): Table => ({ head, numeric: [1, 2, 3, 4, 5, 6], wide: [8], rows: rows.map(starvationRow) });
  const shown = c.operations.filter((o) => o.phasedShare > 0);
  const rest = c.operations.filter((o) => o.phasedShare === 0);
  return {
    id: 'starvation',
    title: 'Starvation in time: how long each loop keeps an op from running that the other would run',
    intro: [
      `Share of ${formatDuration(c.objectSeconds)} of object-time (the time between consecutive attempts of each object, summed), on every attempt with both loops replayed. ` +
        `Time behind a failed critical group is the model’s design and not harm; an op is starved when the rest exceeds the sequential loop’s share by more than ${percent(t.maxStarvationShare)}.`,
    ],
    table: table(shown),
    ...(rest.length > 0 ? { rest: { summary: `${plural(rest.length, 'more op')} only the sequential loop keeps from running`, table: table(rest) } } : {}),
  };
}

const PAIR_HEAD = [
  'runs first',
  'then',
  'loop',
  'after failure',
  'after success',
  'difference',
  'margin',
  'e (bar)',
  'fixed-sample q',
  'noise floor',
  'status',
  'why',
];
const PAIR_NUMERIC = [3, 4, 5, 6, 7, 8, 9];
const PAIR_WIDE = [11];

function pairRow(p: PairDecision): Cell[] {
  const { a, b, c, d } = p.table;
  return [
    p.first,
    p.then,
    p.loop,
    a + b === 0 ? '-' : `${count(a)}/${count(a + b)}`,
    c + d === 0 ? '-' : `${count(c)}/${count(c + d)}`,
    points(p.riskDifference),
    `${percent(p.margin)}`,
    p.e === null ? '-' : `${eValue(p.e)} (${eValue(p.eBar)})`,
    pValue(p.q),
    percent(p.noiseFloor),
    badge(p.status),
    p.why,
  ];
}

function reorderedSection(pairs: readonly PairDecision[]): Section {
  const shown = pairs.filter((p) => p.status !== 'inconclusive' || p.table.a + p.table.b > 0);
  const rest = pairs.filter((p) => !shown.includes(p));
  const untestable = rest.filter((p) => !p.followsFailure).length;
  return {
    id: 'reordered-pairs',
    title: 'Ordering evidence: pairs the phased loop runs in a new order',
    intro: [
      'For each pair, in the phased loop’s order and from its attempts only: how often the later op failed in attempts where the earlier one failed, and where it succeeded. ' +
        'An attempt counts only when both ops succeeded in the object’s previous attempt, so each count is a change from a healthy state (a stuck fault counts once). ' +
        'Dependent pairs make the reordering risky.',
      'Anytime-valid stratified e-value within strata of the time since the previous attempt (faults that start between attempts are likelier after long gaps), e-BH over all tested pair tables; ' +
        'a pair is tested only with enough observations, and is dependent when e-BH finds it and the increase exceeds the margin of the later op’s rate. The exact test’s q is the fixed-sample view.',
    ],
    table: { head: PAIR_HEAD, numeric: PAIR_NUMERIC, wide: PAIR_WIDE, rows: shown.map(pairRow) },
    ...(rest.length > 0
      ? {
          rest: {
            summary: `${plural(rest.length, 'more pair')} never seen after the first op failed (${untestable} of them cannot be: the phased loop never runs the later op after that failure)`,
            table: { head: PAIR_HEAD, numeric: PAIR_NUMERIC, wide: PAIR_WIDE, rows: rest.map(pairRow) },
          },
        }
      : {}),
  };
}

function otherDependenceSection(pairs: readonly PairDecision[]): Section {
  return {
    id: 'other-dependence',
    title: 'Other dependence: pairs both loops run in the same order, and the sequential loop’s tables',
    intro: [
      'Not an ordering risk, but the evidence behind the classification check: the later op fails more often after the earlier one failed, in the loop named.',
    ],
    table: { head: PAIR_HEAD, numeric: PAIR_NUMERIC, wide: PAIR_WIDE, rows: pairs.map(pairRow) },
  };
}

function classificationSection(groups: readonly GroupDecision[]): Section {
  return {
    id: 'classification',
    title: 'Classification check: critical vs non-critical',
    intro: [
      'Phased loop only. Non-critical groups followed by downstream failures should be critical; critical groups whose failures precede none could be non-critical (which frees more work), and are never harm. ' +
        'failed: attempts with a failure of the group; runs: distinct failure runs; judged: runs with later ops observed after the failure; ' +
        'blocks: blockable groups the phased loop skipped after its failure; seq. skipped: op-runs the sequential loop skipped after it.',
    ],
    table: {
      head: ['group', 'category', 'failed', 'runs', 'judged', 'blocks (phased)', 'seq. skipped', 'finding', 'detail', 'why'],
      numeric: [2, 3, 4, 6],
      wide: [9],
      rows: groups.map((g) => [
        g.group,
        categoryName(g.category) + (g.blockable ? ', blockable' : ''),
        count(g.failedAttempts),
        count(g.failureRuns),
        count(g.judgedRuns),
        g.blocks.length === 0 ? '-' : `${plural(g.blocks.length, 'group')}, ≤ ${count(Math.max(...g.blocks.map((x) => x.attempts)))} attempts`,
        count(g.sequentialSkippedOps),
        badge(g.finding),
        g.detail,
        g.why,
      ]),
    },
  };
}

function noiseSection(floors: Readonly<Record<LoopKind, NoiseFloor>>): Section {
  const all = [floors.sequential, floors.phased];
  return {
    id: 'noise-floor',
    title: 'Noise floor (A/A): outcome flips with no spec change',
    intro: [
      `Consecutive attempts of one object with the same generation, per loop: ${all.map((n) => `${n.loop} ${count(n.flips)} flips in ${count(n.comparisons)} op comparisons (${percent(n.overall)})`).join('; ')}. ` +
        'A failure-rate difference no larger than the op’s own flip rate does not count as evidence.',
    ],
    table: {
      head: ['loop', 'operation', 'comparisons', 'flips', 'rate'],
      numeric: [2, 3, 4],
      rows: all.flatMap((n) => n.operations.map((o) => [n.loop, o.op, count(o.comparisons), count(o.flips), percent(o.rate)])),
    },
  };
}

function operationsSection(s: ControllerSummary): Section {
  return {
    id: 'operations',
    title: 'Operations',
    intro: [
      'Both loops’ attempts together, as `analyze` counts them. predicted: attempts where the op’s own outcome was predicted from history, not observed.',
    ],
    table: { ...operationsTable(s.operations, { count, percent }), wide: [8] },
  };
}

function blockedBySection(s: ControllerSummary): Section {
  return {
    id: 'blocked-by',
    title: 'Blocked by (phased loop: failed critical group → skipped blockable group)',
    intro: [],
    table: { head: ['blocker', 'blocked', 'attempts'], numeric: [2], rows: s.blockedBy.map((x) => [x.blocker, x.blocked, count(x.count)]) },
  };
}

function thresholdsSection(t: DecisionThresholds): Section {
  const value = (k: keyof DecisionThresholds): string => (k === 'minWindow' ? span(t[k]) : String(t[k]));
  const rows = (Object.keys(THRESHOLD_DOCS) as (keyof DecisionThresholds)[]).map((k) => [k, value(k), THRESHOLD_DOCS[k]]);
  return { id: 'thresholds', title: 'Thresholds used', intro: [], table: { head: ['threshold', 'value', 'meaning'], numeric: [], wide: [2], rows } };
}
