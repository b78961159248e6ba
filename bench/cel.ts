/**
 * CEL lifecycle rules: evaluations/s of the design's recreate rule, compiled once, through the shadow's own CEL
 * runtime (@marcbachmann/cel-js with limits and a time budget), against cel-js, the first library considered.
 * cel-js cannot parse the optional syntax (`resources.?job.hasValue()`) nor `string()`, so its side runs the
 * closest rule it can: `has()` guards and the generation passed as a string.
 */
import { evaluate, parse } from 'cel-js';
import { CelRuntime } from '../analyzer/recreations/cel.js';
import { atLeast, throughputSideBySide, type BenchResult } from './harness.js';

const DESIGN_RULE = `resources.?job.hasValue()
&& has(resources.job.metadata)
&& has(resources.job.metadata.annotations)
&& string(generation) != resources.job.metadata.annotations["hyperfleet.io/generation"]`;
const CEL_JS_RULE =
  'has(resources.job) && has(resources.job.metadata) && has(resources.job.metadata.annotations) && generation != resources.job.metadata.annotations["hyperfleet.io/generation"]';
const EVALUATIONS = 50_000;

export async function benchCel(): Promise<BenchResult> {
  const job = {
    metadata: { name: 'validate-c001', namespace: 'hf-c001', annotations: { 'hyperfleet.io/generation': '2' } },
    status: { conditions: [{ type: 'Complete', status: 'True' }] },
  };
  const rule = new CelRuntime().compile({
    source: DESIGN_RULE,
    owner: 'resource "job" lifecycle.recreate.when.expression',
    file: 'bench',
    line: 1,
    column: 1,
    block: true,
  });
  const contexts = Array.from({ length: 16 }, (_, i) => ({ generation: BigInt(2 + (i % 2)), resources: { job } }));
  const parsed = parse(CEL_JS_RULE);
  if (!parsed.isSuccess) throw new Error('cel-js could not parse the baseline rule');
  const jsContexts = contexts.map((c) => ({ generation: String(c.generation), resources: c.resources }));
  const figureTrues = (): number => {
    let trues = 0;
    for (let i = 0; i < EVALUATIONS; i++) {
      const r = rule.evaluate(contexts[i % contexts.length]!);
      if (r.ok && r.value === true) trues++;
    }
    return trues;
  };
  const baselineTrues = (): number => {
    let trues = 0;
    for (let i = 0; i < EVALUATIONS; i++) if (evaluate(parsed.cst, jsContexts[i % jsContexts.length]) === true) trues++;
    return trues;
  };
  const trues = figureTrues();
  if (baselineTrues() !== trues) throw new Error('the two rules disagree on the same contexts');
  const [figure, baseline] = await throughputSideBySide(EVALUATIONS, figureTrues, baselineTrues);
  return atLeast(
    'CEL recreate rule',
    'evaluations/s',
    figure,
    baseline,
    8,
    `${trues} of ${EVALUATIONS} true; the shadow's runtime includes its limits and time budget`,
  );
}
