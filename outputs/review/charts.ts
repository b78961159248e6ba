/**
 * The report's charts as Vega-Lite specs (svg.ts renders them to SVG when the HTML report is built: no script in the
 * page, no network needed to open it). Each spec is built from report data only; a chart with nothing to show renders
 * a one-line message instead, so every chart container always holds a drawn SVG. Building specs loads no renderer,
 * so the Markdown and JSON reports never pay for one.
 */
import type { TopLevelSpec } from 'vega-lite';
import type { LoopComparison, OperationComparison } from '../../analyzer/decisions/loop-comparison.js';
import type { OrderingEvidence } from '../../analyzer/decisions/ordering.js';
import type { StarvationOverTime } from '../../analyzer/decisions/decide.js';
import type { ControllerSummary } from '../../analyzer/summary/types.js';

/** Recreation durations of one resource kind under both flows (from the recreation tracker), in seconds. */
export interface RecreationDurations {
  readonly kind: string;
  readonly blockingSeconds: readonly number[];
  readonly sentinelSeconds: readonly number[];
}

export interface Chart {
  /** Stable id: the chart container's `data-chart` attribute. */
  readonly id: string;
  readonly title: string;
  /** One sentence on how to read it. */
  readonly caption: string;
  readonly spec: TopLevelSpec;
  /** The chart as fixed-width lines, for reports without pictures (Markdown); absent when only the HTML draws it. */
  readonly text?: readonly string[];
}

/** Bars shown at most per chart; the tables below list everything. */
const MAX_BARS = 20;
const WIDTH = 460;
const BAR_STEP = 18;
const FONT = 'system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif';

const PALETTE = {
  critical: '#c5221f',
  nonCritical: '#1a73e8',
  sequentialOnly: '#9aa0a6',
  unblocked: '#188038',
  newlyBlocked: '#c5221f',
  dependent: '#c5221f',
  safe: '#188038',
  inconclusive: '#b06000',
} as const;

const CONFIG = {
  font: FONT,
  background: '#ffffff',
  view: { stroke: null },
  axis: {
    labelFontSize: 11,
    titleFontSize: 11,
    titleFontWeight: 'normal',
    titleColor: '#3c4043',
    labelColor: '#3c4043',
    gridColor: '#e8eaed',
    domainColor: '#9aa0a6',
    tickColor: '#9aa0a6',
  },
  legend: { labelFontSize: 11, titleFontSize: 11, titleFontWeight: 'normal', orient: 'bottom', direction: 'horizontal' },
} as const;

function spec(body: Record<string, unknown>): TopLevelSpec {
  return { $schema: 'https://vega.github.io/schema/vega-lite/v6.json', config: CONFIG, ...body } as TopLevelSpec;
}

/** A chart that only says why there is nothing to draw. */
function messageSpec(text: string): TopLevelSpec {
  return spec({
    width: WIDTH,
    height: 60,
    data: { values: [{ text }] },
    mark: { type: 'text', fontSize: 13, color: '#5f6368' },
    encoding: { text: { field: 'text', type: 'nominal' } },
  });
}

const FINDING_SCALE = {
  domain: ['worse-under-phased', 'better-under-phased', 'same', 'inconclusive'],
  range: [PALETTE.dependent, PALETTE.unblocked, PALETTE.sequentialOnly, PALETTE.inconclusive],
};

/** Ops whose failure rate the loop comparison charts: with a run under both loops and a failure under either. */
function charted(comparison: LoopComparison): OperationComparison[] {
  const rank = (o: OperationComparison): number => (o.finding === 'worse-under-phased' ? 0 : o.finding === 'better-under-phased' ? 1 : 2);
  const highest = (o: OperationComparison): number => Math.max(o.sequential.rate!, o.phased.rate!);
  return comparison.operations
    .filter((o) => o.sequential.rate !== null && o.phased.rate !== null && o.sequential.failures + o.phased.failures > 0)
    .sort((x, y) => rank(x) - rank(y) || highest(y) - highest(x) || (x.operation < y.operation ? -1 : 1))
    .slice(0, MAX_BARS);
}

/** The same chart as fixed-width text, for the Markdown report: one line per op, a bar per loop. */
function loopComparisonText(ops: readonly OperationComparison[]): string[] {
  const width = 24;
  const max = Math.max(...ops.flatMap((o) => [o.sequential.rate!, o.phased.rate!]), 1e-9);
  const name = Math.max(...ops.map((o) => o.operation.length));
  const bar = (rate: number): string => {
    const eighths = Math.round((rate / max) * width * 8);
    return ('█'.repeat(Math.floor(eighths / 8)) + (eighths % 8 === 0 ? '' : ' ▏▎▍▌▋▊▉'[eighths % 8]!)).padEnd(width);
  };
  const pct = (rate: number): string => `${(rate * 100).toFixed(rate < 0.1 ? 2 : 1)}%`.padStart(6);
  return ops.flatMap((o) => [
    `${o.operation.padEnd(name)}  sequential ${bar(o.sequential.rate!)} ${pct(o.sequential.rate!)}`,
    `${''.padEnd(name)}  phased     ${bar(o.phased.rate!)} ${pct(o.phased.rate!)}  ${o.finding}`,
  ]);
}

/** Per op, the failure rate under each loop (from its own attempts), coloured by the comparison's finding. */
export function loopComparisonChart(comparison: LoopComparison): Chart {
  const ops = charted(comparison);
  const base = {
    id: 'loop-comparison',
    title: 'Failure rate per operation, per loop',
    caption:
      'Each op’s failure rate under the sequential loop (•) and the phased loop (○), each from its own attempts, over the runs both loops make; colour is the finding.',
  };
  if (ops.length === 0)
    return {
      ...base,
      spec: messageSpec(comparison.unavailable ?? 'no operation failed under both loops’ comparable runs'),
      text: [comparison.unavailable ?? 'no operation failed under both loops’ comparable runs'],
    };
  const rows = ops.map((o) => ({
    op: o.operation,
    finding: o.finding,
    sequential: o.sequential.rate,
    phased: o.phased.rate,
    low: Math.min(o.sequential.rate!, o.phased.rate!),
    high: Math.max(o.sequential.rate!, o.phased.rate!),
  }));
  const color = { field: 'finding', type: 'nominal', scale: FINDING_SCALE, title: null };
  const highest = Math.max(...rows.map((r) => r.high));
  const ticks = [0, 0.001, 0.01, 0.05, 0.1, 0.25, 0.5, 0.75, 1].filter((v) => v <= Math.max(highest, 0.01) * 1.05);
  const x = { type: 'quantitative', scale: { type: 'sqrt', zero: true }, axis: { format: '~%', values: ticks }, title: 'failure rate (square-root scale)' };
  return {
    ...base,
    text: loopComparisonText(ops),
    spec: spec({
      width: WIDTH - 200,
      height: { step: BAR_STEP + 2 },
      data: { values: rows },
      encoding: { y: { field: 'op', type: 'nominal', sort: rows.map((r) => r.op), title: null, axis: { labelLimit: 220 } } },
      layer: [
        { mark: { type: 'rule', strokeWidth: 2 }, encoding: { x: { field: 'low', ...x }, x2: { field: 'high' }, color } },
        { mark: { type: 'point', filled: true, size: 50 }, encoding: { x: { field: 'sequential', type: 'quantitative' }, color } },
        { mark: { type: 'point', filled: false, size: 70, strokeWidth: 2 }, encoding: { x: { field: 'phased', type: 'quantitative' }, color } },
      ],
    }),
  };
}

export function divergenceChart(summary: ControllerSummary): Chart {
  // Newly blocked ops first (the harm), then the most unblocked; ops in one loop only diverge by construction.
  const ops = summary.operations
    .filter((o) => o.onlyIn === null && (o.unblocked > 0 || o.newlyBlocked > 0))
    .sort((x, y) => y.newlyBlocked - x.newlyBlocked || y.unblocked - x.unblocked || (x.name < y.name ? -1 : 1))
    .slice(0, MAX_BARS);
  const base = {
    id: 'unblocked-vs-newly-blocked',
    title: 'Unblocked vs newly blocked per operation',
    caption:
      'Op-runs the phased loop would add (right) or take away (left) compared with the sequential loop, over all attempts; ops that exist in one loop only are left out.',
  };
  if (ops.length === 0) return { ...base, spec: messageSpec('the two loops ran the same operations in every attempt') };
  const values = ops.flatMap((o, rank) => [
    { op: o.name, rank, kind: 'unblocked', count: o.unblocked },
    { op: o.name, rank, kind: 'newly blocked', count: -o.newlyBlocked },
  ]);
  return {
    ...base,
    spec: spec({
      width: WIDTH - 140,
      height: { step: BAR_STEP },
      data: { values },
      mark: { type: 'bar', cornerRadius: 1 },
      encoding: {
        y: { field: 'op', type: 'nominal', sort: { field: 'rank', order: 'ascending' }, title: null, axis: { labelLimit: 200 } },
        x: { field: 'count', type: 'quantitative', title: 'op-runs (newly blocked ← | → unblocked)', axis: { labelExpr: "format(abs(datum.value), '~s')" } },
        color: {
          field: 'kind',
          type: 'nominal',
          scale: { domain: ['unblocked', 'newly blocked'], range: [PALETTE.unblocked, PALETTE.newlyBlocked] },
          title: null,
        },
      },
    }),
  };
}

export function blockedByChart(summary: ControllerSummary): Chart {
  const base = {
    id: 'blocked-by',
    title: 'Blocked-by matrix (phased loop)',
    caption: 'Attempts in which a failed critical group (row) made the phased loop skip a blockable group (column).',
  };
  if (summary.blockedBy.length === 0) return { ...base, spec: messageSpec('no critical group failed, so the phased loop blocked nothing') };
  return {
    ...base,
    spec: spec({
      width: { step: 58 },
      height: { step: 28 },
      data: { values: summary.blockedBy.map((b) => ({ blocker: b.blocker, blocked: b.blocked, count: b.count })) },
      transform: [{ joinaggregate: [{ op: 'max', field: 'count', as: 'max' }] }],
      encoding: {
        x: { field: 'blocked', type: 'nominal', title: 'skipped group', axis: { labelAngle: -40, labelLimit: 220 } },
        y: { field: 'blocker', type: 'nominal', title: 'failed critical group', axis: { titlePadding: 14 } },
      },
      layer: [
        {
          mark: { type: 'rect', cornerRadius: 2 },
          encoding: { color: { field: 'count', type: 'quantitative', scale: { scheme: 'oranges' }, title: 'attempts' } },
        },
        {
          mark: { type: 'text', fontSize: 10 },
          encoding: {
            text: { field: 'count', type: 'quantitative', format: ',' },
            color: { condition: { test: 'datum.count > datum.max / 2', value: '#ffffff' }, value: '#202124' },
          },
        },
      ],
    }),
  };
}

export function starvationChart(starvation: StarvationOverTime): Chart {
  const base = {
    id: 'starvation-over-time',
    title: 'Starvation over time',
    caption: 'Longest open streak, per operation, in which the observed loop skipped work the other loop would have run (the 5 most starved operations).',
  };
  if (starvation.ops.length === 0) return { ...base, spec: messageSpec('no starvation: the observed loop ran everything the other loop would have') };
  const values = starvation.points.flatMap((p) => starvation.ops.map((op, i) => ({ time: p.time, op, minutes: p.longestSeconds[i]! / 60 })));
  return {
    ...base,
    spec: spec({
      width: WIDTH - 170,
      height: 200,
      data: { values },
      mark: { type: 'line', interpolate: 'step-after', strokeWidth: 1.5 },
      encoding: {
        x: { field: 'time', type: 'temporal', scale: { type: 'utc' }, axis: { format: '%b %d %H:%M', labelAngle: 0, tickCount: 6 }, title: null },
        y: { field: 'minutes', type: 'quantitative', title: 'longest open starvation (minutes)' },
        color: {
          field: 'op',
          type: 'nominal',
          sort: starvation.ops,
          title: null,
          scale: { scheme: 'tableau10' },
          legend: { orient: 'right', direction: 'vertical' },
        },
      },
    }),
  };
}

export function recreationChart(recreations: readonly RecreationDurations[] | undefined): Chart {
  const base = {
    id: 'recreation-durations',
    title: 'Recreation durations: blocking vs sentinel',
    caption: 'How long a delete-then-recreate left the resource unreconciled under the blocking flow and the sentinel flow, per kind.',
  };
  const values = (recreations ?? []).flatMap((r) => [
    ...r.blockingSeconds.map((seconds) => ({ kind: r.kind, flow: 'blocking', seconds })),
    ...r.sentinelSeconds.map((seconds) => ({ kind: r.kind, flow: 'sentinel', seconds })),
  ]);
  if (values.length === 0) return { ...base, spec: messageSpec('no recreation data') };
  const kinds = new Set(values.map((v) => v.kind)).size;
  return {
    ...base,
    spec: spec({
      width: WIDTH - 80,
      height: { step: 22 },
      data: { values },
      mark: { type: 'boxplot', extent: 'min-max', size: 14 },
      encoding: {
        x: { field: 'seconds', type: 'quantitative', title: 'seconds unreconciled' },
        y: { field: 'flow', type: 'nominal', title: null },
        color: { field: 'flow', type: 'nominal', scale: { domain: ['blocking', 'sentinel'], range: [PALETTE.critical, PALETTE.nonCritical] }, legend: null },
        ...(kinds > 1 ? { row: { field: 'kind', type: 'nominal', title: null } } : {}),
      },
    }),
  };
}

/** Reordered pairs with data: the later op's failure rate after the earlier op succeeded (dot) and failed (ring). */
export function orderingChart(ordering: OrderingEvidence): Chart {
  const base = {
    id: 'ordering-evidence',
    title: 'Reordered pairs: failure rate after the first op failed vs succeeded',
    caption: 'For pairs the phased loop runs in a new order: how often the later op failed after the earlier one succeeded (•) and after it failed (○).',
  };
  const pairs = ordering.reordered.filter((p) => p.rateAfterFailure !== null && p.rateAfterSuccess !== null).slice(0, MAX_BARS);
  if (pairs.length === 0) return { ...base, spec: messageSpec('no reordered pair has been seen after its first op failed') };
  const rows = pairs.map((p) => ({
    pair: `${p.first} → ${p.then}`,
    status: p.status,
    low: Math.min(p.rateAfterFailure!, p.rateAfterSuccess!),
    high: Math.max(p.rateAfterFailure!, p.rateAfterSuccess!),
    afterFailure: p.rateAfterFailure,
    afterSuccess: p.rateAfterSuccess,
  }));
  const color = {
    field: 'status',
    type: 'nominal',
    scale: { domain: ['dependent', 'safe', 'inconclusive'], range: [PALETTE.dependent, PALETTE.safe, PALETTE.inconclusive] },
    title: null,
  };
  const y = { field: 'pair', type: 'nominal', sort: rows.map((r) => r.pair), title: null, axis: { labelLimit: 340 } };
  return {
    ...base,
    spec: spec({
      width: WIDTH - 200,
      height: { step: BAR_STEP + 2 },
      data: { values: rows },
      encoding: { y },
      layer: [
        {
          mark: { type: 'rule', strokeWidth: 2 },
          encoding: {
            x: { field: 'low', type: 'quantitative', scale: { domain: [0, 1] }, axis: { format: '.0%' }, title: 'failure rate of the later op' },
            x2: { field: 'high' },
            color,
          },
        },
        { mark: { type: 'point', filled: true, size: 50 }, encoding: { x: { field: 'afterSuccess', type: 'quantitative' }, color } },
        { mark: { type: 'point', filled: false, size: 70, strokeWidth: 2 }, encoding: { x: { field: 'afterFailure', type: 'quantitative' }, color } },
      ],
    }),
  };
}
