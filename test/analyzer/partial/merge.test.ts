/**
 * Partial summaries: n shards of a fleet, merged in any order and grouping, are exactly one run over the whole fleet,
 * the summary and the decisions' statistics alike. The fleets come from the planted-world generator (written for the
 * decision tests, independent of the engine), with records of an unknown controller mixed in for rejections.
 */
import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import fc from 'fast-check';
import { Analyzer } from '../../../analyzer/analyzer.js';
import { DecisionEvidence } from '../../../analyzer/decisions/evidence.js';
import { decisionsJson } from '../../../analyzer/decisions/json.js';
import { decisionReport } from '../../../analyzer/decisions/decide.js';
import { DEFAULT_THRESHOLDS } from '../../../analyzer/decisions/thresholds.js';
import { partialOf, RejectionSampler } from '../../../analyzer/partial/collect.js';
import { coarsest, unite, type Coverage } from '../../../analyzer/partial/coverage.js';
import { decodePartial, encodePartial, type PartialState } from '../../../analyzer/partial/format.js';
import { MergeError, mergePartials } from '../../../analyzer/partial/merge.js';
import { decisionReportOf, summaryOf } from '../../../analyzer/partial/results.js';
import type { AttemptRecord } from '../../../collector/records.js';
import { objectHash } from '../../../collector/input/shard.js';
import { ValidationError } from '../../../lib/validation-error.js';
import { parseModel } from '../../../model/load.js';
import { modelDocument } from '../../../model/document.js';
import type { ReconcileModel } from '../../../model/types.js';
import { HOSTED_CLUSTER, SMALL, SMALL_REVERSED, smallWorld, hostedClusterWorld, hostedClusterMisclassified } from '../decisions/planted-models.js';
import { plantedWorld } from '../decisions/planted-world.js';
import { FUZZ_RUNS } from '../../fuzz/runs.js';
import { REPO } from '../../support/paths.js';

interface Run {
  readonly partial: PartialState;
  readonly analyzer: Analyzer;
  readonly evidence: DecisionEvidence;
}

/** One run over the records `keep` selects, as a shard of `coverage` (records are numbered as lines from 1). */
function run(model: ReconcileModel, records: readonly AttemptRecord[], keep: (r: AttemptRecord) => boolean, coverage: Coverage): Run {
  const analyzer = new Analyzer([model]);
  const evidence = new DecisionEvidence();
  analyzer.listen(evidence);
  let position = 0;
  const sampler = new RejectionSampler('fleet.jsonl', () => position);
  analyzer.listen(sampler);
  records.forEach((r, i) => {
    if (!keep(r)) return;
    position = i + 1;
    analyzer.received('journal', 1);
    analyzer.attempt(r);
  });
  return { partial: partialOf(analyzer, evidence, { kind: 'journal', name: 'fleet.jsonl', shards: coverage }, sampler), analyzer, evidence };
}

function shards(model: ReconcileModel, records: readonly AttemptRecord[], n: number): PartialState[] {
  return Array.from({ length: n }, (_, i) => run(model, records, (r) => objectHash(r.controller, r.object) % n === i, { count: n, indices: [i] }).partial);
}

const text = (p: PartialState): string => JSON.stringify(encodePartial(p));

/** A fleet with every 50th attempt sent under a controller no model describes (rejected, sampled with its position). */
function fleet(records: Iterable<AttemptRecord>): AttemptRecord[] {
  return [...records].map((r, i) => (i % 50 === 7 ? { ...r, controller: 'unknown-controller' } : r));
}

const SMALL_FLEET = fleet(plantedWorld({ ...smallWorld(4, SMALL_REVERSED), durationMs: 6 * 3_600_000 }));
const HOSTED_FLEET = fleet(plantedWorld({ ...hostedClusterWorld(21, hostedClusterMisclassified(HOSTED_CLUSTER)), objects: 30, durationMs: 4 * 3_600_000 }));

describe('partial summaries: shards merged are one run', () => {
  for (const [name, model, records] of [
    ['the small planted model', SMALL, SMALL_FLEET],
    ['the HostedCluster model', HOSTED_CLUSTER, HOSTED_FLEET],
  ] as const) {
    it(`${name}: 4 shards merged give the one run's summary and decisions, byte for byte`, () => {
      const whole = run(model, records, () => true, { count: 1, indices: [0] });
      const merged = shards(model, records, 4).reduce(mergePartials);
      assert.equal(text(merged), text(whole.partial));
      assert.equal(JSON.stringify(summaryOf(merged), null, 2), JSON.stringify(whole.analyzer.summary(), null, 2));
      const decisions = (r: ReturnType<typeof decisionReport>): string => JSON.stringify(decisionsJson(r), null, 2);
      assert.equal(decisions(decisionReportOf(merged, DEFAULT_THRESHOLDS)), decisions(decisionReport(whole.analyzer, whole.evidence, DEFAULT_THRESHOLDS)));
      // The data is not trivial: rejections, starvation over time and both loops' evidence are in it.
      const p = whole.partial;
      assert.ok(p.input.rejected > 10 && p.input.rejectionSample.length === 20);
      assert.ok(p.controllers[0]!.evidence!.timeline.buckets.length > 100);
      assert.ok(p.controllers[0]!.evidence!.counters.loops.sequential.attempts > 0 && p.controllers[0]!.evidence!.counters.loops.phased.attempts > 0);
    });
  }

  it('merges in any order and grouping: associative and commutative, whatever the number of shards', () => {
    const byCount = new Map([1, 2, 3, 5].map((n) => [n, shards(SMALL, SMALL_FLEET, n)]));
    const expected = text(run(SMALL, SMALL_FLEET, () => true, { count: 1, indices: [0] }).partial);
    // A merge tree over a permutation of the shards: [left count, ...] read as a random binary tree.
    const tree = (parts: PartialState[], splits: number[]): PartialState => {
      if (parts.length === 1) return parts[0]!;
      const at = 1 + ((splits[0] ?? 0) % (parts.length - 1));
      return mergePartials(tree(parts.slice(0, at), splits.slice(1)), tree(parts.slice(at), splits.slice(1).reverse()));
    };
    fc.assert(
      fc.property(fc.constantFrom(...byCount.keys()), fc.array(fc.nat(), { maxLength: 8 }), fc.array(fc.nat(), { maxLength: 8 }), (n, order, splits) => {
        const parts = [...byCount.get(n)!];
        for (let i = 0; i < order.length; i++) {
          const j = order[i]! % parts.length;
          [parts[0], parts[j]] = [parts[j]!, parts[0]!];
        }
        assert.equal(text(tree(parts, splits)), expected);
      }),
      { numRuns: Math.min(FUZZ_RUNS, 200) },
    );
  });

  it('round-trips through its JSON, which the published schema accepts', () => {
    const partial = run(HOSTED_CLUSTER, HOSTED_FLEET, () => true, { count: 1, indices: [0] }).partial;
    const json = text(partial);
    assert.equal(text(decodePartial(json, 'p.json')), json);
    const ajv = new Ajv({ allErrors: true, strict: true });
    const validate = ajv.compile(JSON.parse(readFileSync(join(REPO, 'docs/partial.schema.json'), 'utf8')) as object);
    assert.ok(validate(JSON.parse(json)), JSON.stringify(validate.errors));
    // The embedded model is the one the partial was made with.
    assert.deepEqual(parseModel(JSON.stringify(modelDocument(HOSTED_CLUSTER)), 'doc'), HOSTED_CLUSTER);
  });
});

describe('merging refuses what would not be one run', () => {
  const [a, b] = shards(SMALL, SMALL_FLEET, 2) as [PartialState, PartialState];

  it('a shard merged twice, or shards that overlap on another count', () => {
    assert.throws(
      () => mergePartials(a, a),
      new MergeError('both partials analysed journal fleet.jsonl: both cover shard 0 of 2; merging them would count those objects twice'),
    );
    const ofFour = shards(SMALL, SMALL_FLEET, 4);
    assert.throws(() => mergePartials(a, ofFour[2]!), /both cover shard 2 of 4/);
    // Shards 1 and 3 of 4 are shard 1 of 2: with shard 0 of 2 the input is whole.
    assert.deepEqual(mergePartials(mergePartials(ofFour[1]!, a), ofFour[3]!).inputs[0]!.shards, { count: 1, indices: [0] });
    assert.equal(text(mergePartials(a, b)), text(mergePartials(mergePartials(ofFour[1]!, a), ofFour[3]!)));
  });

  it('partials of different models, or of another version of the model', () => {
    const other = shards(HOSTED_CLUSTER, HOSTED_FLEET, 2)[1]!;
    assert.throws(
      () => mergePartials(a, other),
      /made with different models: gadget \(model planted-small\) and hostedcluster \(model hypershift-hostedcluster\)/,
    );
    const changed: ReconcileModel = {
      ...SMALL,
      operations: SMALL.operations.map((o) => (o.name === 'Fetch' ? { ...o, errors: [{ format: 'fetch: %w' }] } : o)),
    };
    const b2 = shards(changed, SMALL_FLEET, 2)[1]!;
    assert.throws(() => mergePartials(a, b2), /different versions of model planted-small/);
  });

  it('coverage: disjoint shards of any counts unite in their coarsest form', () => {
    assert.deepEqual(unite({ count: 4, indices: [0] }, { count: 4, indices: [2] }), { count: 2, indices: [0] });
    assert.deepEqual(unite({ count: 2, indices: [0] }, { count: 4, indices: [1] }), { count: 4, indices: [0, 1, 2] });
    assert.deepEqual(coarsest({ count: 6, indices: [0, 1, 2, 3, 4, 5] }), { count: 1, indices: [0] });
    // Shards of coprime counts always share objects (every pair of remainders occurs).
    assert.throws(() => unite({ count: 2, indices: [1] }, { count: 3, indices: [0] }), /both cover shard 3 of 6/);
  });
});

describe('reading a partial summary', () => {
  const good = JSON.parse(text(shards(SMALL, SMALL_FLEET, 2)[0]!)) as Record<string, unknown> & {
    controllers: Record<string, Record<string, unknown>>[];
    inputs: Record<string, unknown>[];
  };
  const broken = (change: (p: typeof good) => void): string => {
    const copy = structuredClone(good);
    change(copy);
    return JSON.stringify(copy);
  };

  /** The problems decodePartial refuses `json` with. */
  const problems = (json: string): readonly string[] => {
    try {
      decodePartial(json, 'p.json');
    } catch (e) {
      if (e instanceof ValidationError && e.kind === 'partial summary') return e.problems;
      throw e;
    }
    assert.fail('the partial was read');
  };

  it('names the file, the line and the field of a problem', () => {
    const cases: [string, string][] = [
      ['{', `p.json:1 (document): not JSON: Expected property name or '}' in JSON at position 1 (line 1 column 2)`],
      ['{\n  "schema": 1,\n  "inputs": ]', `p.json:3 (document): not JSON: Unexpected token ']', ...""inputs": ]" is not valid JSON`],
      ['{\n  "schema": 1,\n}', 'p.json:3 (document): not JSON: Expected double-quoted property name in JSON at position 17 (line 3 column 1)'],
      ['[1]', 'p.json:1 (document): expected a mapping, got [1]'],
      [
        JSON.stringify({ schema: 'reconcile-shadow/summary/v1', controllers: [], input: {} }),
        'p.json:1 schema: expected "reconcile-shadow/partial/v1", got "reconcile-shadow/summary/v1" (a summary of analyze --format json cannot be merged; make partials with --format partial)',
      ],
      [broken((p) => (p.controllers[0]!.summary!.objects = -1)), 'p.json:1 controllers[0].summary.objects: expected a count (a non-negative integer), got -1'],
      [
        broken((p) => ((p.controllers[0]!.summary!.operations as { name: string }[])[2]!.name = 'Nope')),
        `p.json:1 controllers[0].summary.operations[2].name: expected the model's operation "Namespace", got "Nope"`,
      ],
      [
        broken(
          (p) => ((p.controllers[0]!.evidence as { counters: { loops: { phased: { pairs: { length: number } } } } }).counters.loops.phased.pairs.length = 3),
        ),
        `p.json:1 controllers[0].evidence.counters.loops.phased.pairs.length: expected the model's 4608 cells, got 3`,
      ],
      [
        broken((p) => (p.inputs[0]!.shards = { count: 2, indices: [2] })),
        'p.json:1 inputs[0].shards.indices[0]: expected ascending shard indices below 2, got 2',
      ],
      [
        broken((p) => ((p.controllers[0]!.model as { spec: { controller: string } }).spec.controller = '')),
        'p.json:1 controllers[0].model: not a valid model: spec.controller: must be a non-empty string, got ""',
      ],
      [broken((p) => (p.extra = 1)), 'p.json:1 extra: unknown field (allowed: schema, inputs, controllers, input)'],
    ];
    for (const [json, problem] of cases) assert.deepEqual(problems(json), [problem]);
  });

  it('reports every problem, one line each, in file order, with the line of its field', () => {
    const json = JSON.stringify(
      JSON.parse(
        broken((p) => {
          delete (p.input as Record<string, unknown>).rejected;
          p.controllers[0]!.summary!.objects = -1;
          p.inputs[0]!.kind = 'nope';
        }),
      ),
      null,
      2,
    );
    assert.deepEqual(problems(json), [
      'p.json:5 inputs[0].kind: expected one of journal, logs, sidecar, got "nope"',
      'p.json:145 controllers[0].summary.objects: expected a count (a non-negative integer), got -1',
      'p.json:3980 input.rejected: required',
    ]);
  });

  it('stops reading at 100 problems, and says so', () => {
    const found = problems(broken((p) => (p.input = { ...(p.input as object), rejectionSample: Array.from({ length: 150 }, () => 7) })));
    assert.deepEqual(
      [found.length, found[0], found[99], found[100]],
      [
        101,
        'p.json:1 input.rejectionSample[0]: expected a mapping, got 7',
        'p.json:1 input.rejectionSample[99]: expected a mapping, got 7',
        'p.json:1 (document): the reading stopped at 100 problems',
      ],
    );
  });

  it('reports no problem beneath a field already wrong, nor one that builds on a wrong value', () => {
    const json = broken((p) => {
      p.inputs[0]!.shards = { count: 'two', indices: [5, 'x', 0] };
      Object.assign(p.controllers[0]!, { summary: [] });
      p.input = { ...(p.input as object), rejectionSample: 7 };
    });
    assert.deepEqual(problems(json), [
      'p.json:1 inputs[0].shards.count: expected a count (a non-negative integer), got "two"',
      'p.json:1 inputs[0].shards.indices[1]: expected a count (a non-negative integer), got "x"',
      'p.json:1 controllers[0].summary: expected a mapping, got []',
      'p.json:1 input.rejectionSample: expected a list, got 7',
    ]);
  });
});
