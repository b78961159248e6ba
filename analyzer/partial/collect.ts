/**
 * A partial summary of what one analysis counted (format.ts): its controllers' summaries and, when collected, the
 * decisions' evidence, with the input's books. `RejectionSampler` keeps the first rejections with their position in
 * the input, so that the samples of several shards merge into the input's first rejections.
 */
import type { AnalysisListener, Analyzer } from '../analyzer.js';
import type { DecisionEvidence } from '../decisions/evidence.js';
import { REJECTION_SAMPLE } from '../summary/summary.js';
import type { Rejection } from '../../collector/records.js';
import type { InputPart, PartialState, PositionedRejection } from './format.js';

export class RejectionSampler implements AnalysisListener {
  readonly sample: PositionedRejection[] = [];

  /** `position` says where in the input the rejection being reported is (see PositionedRejection). */
  constructor(
    private readonly input: string,
    private readonly position: () => number,
  ) {}

  reject(r: Rejection): void {
    if (this.sample.length < REJECTION_SAMPLE) this.sample.push({ input: this.input, position: this.position(), ...r });
  }
}

/** The partial state of `analyzer` (and `evidence`, when given) after reading `input`. */
export function partialOf(analyzer: Analyzer, evidence: DecisionEvidence | undefined, input: InputPart, sampler: RejectionSampler): PartialState {
  const books = analyzer.ledger.build();
  return {
    inputs: [input],
    controllers: analyzer.summaryStates().map(({ controller, state }) => {
      if (!evidence) return { cm: controller.cm, summary: state, evidence: null };
      const seen = evidence.of(controller.cm);
      return { cm: controller.cm, summary: state, evidence: { counters: seen.snapshot(), timeline: seen.timeline.state(), rules: seen.ruleSnapshot() } };
    }),
    input: {
      received: books.received,
      rejected: books.rejected,
      rejectedByReason: books.rejectedByReason,
      rejectionSample: sampler.sample,
      sources: (books.sources ?? []).map((summary) => ({ input: input.name, summary })),
    },
  };
}
