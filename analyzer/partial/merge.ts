/**
 * Merging partial summaries: the exact union of shards. Counts add, maxima keep the larger (ties decided by name, not
 * by which partial came first), samples keep the first by input and position, and the coverage of each input grows
 * by the other's shards, which must be new (a shard merged twice would count its objects twice), and each rule's own
 * evidence merges by its rule's `merge` (rules/rule.ts RuleEvidence). The result does not
 * depend on the order or grouping of the merges: merge is associative and commutative.
 */
import { copyCounters, mergeCounters } from '../decisions/counters.js';
import { StarvationTimeline } from '../decisions/timeline.js';
import { addCounts, compareText, mergeSummaryStates } from '../summary/summary-state.js';
import { REJECTION_SAMPLE } from '../summary/summary.js';
import { REJECT_REASONS, SOURCE_KINDS } from '../../collector/records.js';
import { modelDocument } from '../../model/document.js';
import { unite } from './coverage.js';
import type { ControllerPart, EvidencePart, InputPart, PartialState, PositionedRejection } from './format.js';

export class MergeError extends Error {
  override name = 'MergeError';
}

/** The merge of partials of disjoint shards (throws MergeError when they overlap or were made with different models). */
export function mergePartials(a: PartialState, b: PartialState): PartialState {
  return { ...mergeCounts(a, b), inputs: mergeInputs(a.inputs, b.inputs) };
}

/**
 * The merge of the parts one process split a shard into (its workers, which took the shard's objects in turn rather
 * than by hash): every count merged as above, and the inputs those of the shard.
 */
export function mergeParts(parts: readonly PartialState[], inputs: readonly InputPart[]): PartialState {
  return { ...parts.reduce(mergeCounts), inputs };
}

function mergeCounts(a: PartialState, b: PartialState): PartialState {
  return {
    inputs: a.inputs,
    controllers: mergeControllers(a.controllers, b.controllers),
    input: {
      received: addCounts(a.input.received, b.input.received, SOURCE_KINDS),
      rejected: a.input.rejected + b.input.rejected,
      rejectedByReason: addCounts(a.input.rejectedByReason, b.input.rejectedByReason, REJECT_REASONS),
      rejectionSample: [...a.input.rejectionSample, ...b.input.rejectionSample].sort(inputOrder).slice(0, REJECTION_SAMPLE),
      sources: [...a.input.sources, ...b.input.sources].sort((x, y) => compareText(x.input, y.input)),
    },
  };
}

function mergeInputs(a: readonly InputPart[], b: readonly InputPart[]): InputPart[] {
  const byKey = new Map<string, InputPart>();
  for (const input of [...a, ...b]) {
    const key = `${input.kind}\u0000${input.name}`;
    const seen = byKey.get(key);
    if (!seen) {
      byKey.set(key, input);
      continue;
    }
    try {
      byKey.set(key, { ...seen, shards: unite(seen.shards, input.shards) });
    } catch (e) {
      throw new MergeError(`both partials analysed ${input.kind} ${input.name}: ${(e as Error).message}; merging them would count those objects twice`);
    }
  }
  return [...byKey.values()].sort((x, y) => compareText(x.name, y.name) || compareText(x.kind, y.kind));
}

function mergeControllers(a: readonly ControllerPart[], b: readonly ControllerPart[]): ControllerPart[] {
  const names = (cs: readonly ControllerPart[]): string => cs.map((c) => `${c.cm.model.controller} (model ${c.cm.model.name})`).join(', ');
  if (a.length !== b.length || a.some((c, i) => c.cm.model.controller !== b[i]!.cm.model.controller)) {
    throw new MergeError(`the partials were made with different models: ${names(a)} and ${names(b)}; partials merge only when made with the same models`);
  }
  return a.map((x, i) => {
    const y = b[i]!;
    // One compiled model (partials read with one ModelCache) is one model; otherwise compared as documents.
    if (x.cm !== y.cm && JSON.stringify(modelDocument(x.cm.model)) !== JSON.stringify(modelDocument(y.cm.model))) {
      throw new MergeError(
        `controller ${x.cm.model.controller}: the partials were made with different versions of model ${x.cm.model.name}; partials merge only when made with the same model`,
      );
    }
    if ((x.evidence === null) !== (y.evidence === null))
      throw new MergeError(`controller ${x.cm.model.controller}: one partial carries the decisions' evidence and the other does not`);
    const ruleNames = (e: EvidencePart | null): string => e?.rules.map((s) => s.rule).join(', ') ?? '';
    if (ruleNames(x.evidence) !== ruleNames(y.evidence))
      throw new MergeError(
        `controller ${x.cm.model.controller}: the partials carry the evidence of different rules (${ruleNames(x.evidence) || 'none'} and ${ruleNames(y.evidence) || 'none'})`,
      );
    return {
      cm: x.cm,
      summary: mergeSummaryStates(x.summary, y.summary),
      evidence: x.evidence && y.evidence && mergeEvidence(x.cm.ops.length, x.evidence, y.evidence),
    };
  });
}

function mergeEvidence(opCount: number, a: EvidencePart, b: EvidencePart): EvidencePart {
  const counters = copyCounters(a.counters);
  mergeCounters(counters, b.counters);
  const timeline = StarvationTimeline.fromState(opCount, a.timeline);
  timeline.merge(b.timeline);
  const rules = a.rules.map((s, i) => ({ ...s, state: s.evidence.merge(s.state, b.rules[i]!.state) }));
  return { counters, timeline: timeline.state(), rules };
}

/** By input, then by position in it (then by the rest, for a total order). */
function inputOrder(x: PositionedRejection, y: PositionedRejection): number {
  return (
    compareText(x.input, y.input) ||
    x.position - y.position ||
    compareText(x.where, y.where) ||
    compareText(x.reason, y.reason) ||
    compareText(x.message, y.message)
  );
}
