/**
 * A rule's own evidence (rules/rule.ts RuleEvidence) is its module and a line in the list: the planted rule
 * (planted-rule.ts) counts, per loop, the attempts whose first op failed, which no shared counter holds. Counted in
 * one run, in two shards' partials merged, or by the fleet over two peers' partials, the rule sees the same state and
 * the decisions read the same, byte for byte; the partial carries it under the evidence's `rules`, which a partial of
 * the production list (no rule declares evidence) does not have.
 */
import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import { Analyzer } from '../../../analyzer/analyzer.js';
import { decisionReport, type DecisionReport } from '../../../analyzer/decisions/decide.js';
import { DecisionEvidence } from '../../../analyzer/decisions/evidence.js';
import { decisionsJson } from '../../../analyzer/decisions/json.js';
import { RULES } from '../../../analyzer/decisions/rules.js';
import type { Rule } from '../../../analyzer/decisions/rules/rule.js';
import { DEFAULT_THRESHOLDS } from '../../../analyzer/decisions/thresholds.js';
import { FleetState } from '../../../analyzer/fleet/fleet.js';
import { partialOf, RejectionSampler } from '../../../analyzer/partial/collect.js';
import { decodePartial, encodePartial, type PartialState } from '../../../analyzer/partial/format.js';
import { MergeError, mergePartials } from '../../../analyzer/partial/merge.js';
import { decisionReportOf } from '../../../analyzer/partial/results.js';
import { objectHash } from '../../../collector/input/shard.js';
import type { AttemptRecord } from '../../../collector/records.js';
import { ValidationError } from '../../../lib/validation-error.js';
import type { LoopKind } from '../../../model/types.js';
import { REPO } from '../../support/paths.js';
import { SMALL, smallWorld } from './planted-models.js';
import { PLANTED } from './planted-rule.js';
import { plantedWorld } from './planted-world.js';

const RECORDS = [...plantedWorld(smallWorld(11, { kind: 'none' }))];
const WITH_PLANTED: readonly Rule[] = [...RULES, PLANTED];

interface Run {
  readonly analyzer: Analyzer;
  readonly evidence: DecisionEvidence;
  readonly partial: PartialState;
}

/** One run over the records `keep` selects, with the rules of `rules`, as shard `index` of `count`. */
function run(rules: readonly Rule[], keep: (r: AttemptRecord) => boolean = () => true, index = 0, count = 1): Run {
  const analyzer = new Analyzer([SMALL]);
  const evidence = new DecisionEvidence({ rules });
  analyzer.listen(evidence);
  const sampler = new RejectionSampler('fleet.jsonl', () => 0);
  for (const r of RECORDS) if (keep(r)) analyzer.attempt(r);
  return { analyzer, evidence, partial: partialOf(analyzer, evidence, { kind: 'journal', name: 'fleet.jsonl', shards: { count, indices: [index] } }, sampler) };
}

const shard = (i: number): Run => run(WITH_PLANTED, (r) => objectHash(r.controller, r.object) % 2 === i, i, 2);
const text = (p: PartialState): string => JSON.stringify(encodePartial(p));
const decisions = (r: DecisionReport): string => JSON.stringify(decisionsJson(r), null, 2);
const planted = (r: DecisionReport): Record<string, unknown> => r.controllers[0]!.verdict.rules.find((o) => o.rule === 'planted')!.details!;
type Evidence = { rules?: Record<string, unknown> };
const evidenceJson = (p: PartialState): Evidence => (JSON.parse(text(p)) as { controllers: { evidence: Evidence }[] }).controllers[0]!.evidence;

/** Counted from the records, not by the analyzer: per loop, the attempts (no status transition) whose first op failed. */
const firstFailed = (records: readonly AttemptRecord[], loop: LoopKind): number =>
  records.filter((r) => r.loop === loop && !r.origin.transition && r.operations[0]?.outcome === 'error').length;

describe('a rule’s own evidence', () => {
  let whole: Run;
  let parts: [Run, Run];
  before(() => {
    whole = run(WITH_PLANTED);
    parts = [shard(0), shard(1)];
  });

  it('one run: the rule’s evaluate reads the state counted from every attempt', () => {
    assert.deepEqual({ sequential: firstFailed(RECORDS, 'sequential'), phased: firstFailed(RECORDS, 'phased') }, { sequential: 30, phased: 19 });
    assert.deepEqual(planted(decisionReport(whole.analyzer, whole.evidence, DEFAULT_THRESHOLDS)), {
      phasedAttempts: 2330,
      firstOpFailed: { sequential: 30, phased: 19 },
    });
  });

  it('decisions and partials read a copy: counting goes on without changing it', () => {
    const going = run(WITH_PLANTED);
    const live = going.evidence.of(going.analyzer.controllers[0]!.cm);
    const copy = live.ruleSnapshot();
    going.analyzer.attempt({ ...RECORDS.find((r) => r.loop === 'phased' && r.operations[0]?.outcome === 'error')!, timeMs: RECORDS.at(-1)!.timeMs + 1 });
    assert.deepEqual(copy[0]!.state, { sequential: 30, phased: 19 });
    assert.deepEqual(live.ruleSnapshot()[0]!.state, { sequential: 30, phased: 20 });
    assert.deepEqual(evidenceJson(going.partial).rules, { planted: { sequential: 30, phased: 19 } });
  });

  it('the partial carries it under the evidence’s rules, in each shard its own objects’ counts', () => {
    assert.deepEqual(evidenceJson(whole.partial).rules, { planted: { sequential: 30, phased: 19 } });
    const [a, b] = parts.map((p) => evidenceJson(p.partial).rules!.planted as Record<LoopKind, number>) as [Record<LoopKind, number>, Record<LoopKind, number>];
    const inShard = (i: number): AttemptRecord[] => RECORDS.filter((r) => objectHash(r.controller, r.object) % 2 === i);
    assert.deepEqual(a, { sequential: firstFailed(inShard(0), 'sequential'), phased: firstFailed(inShard(0), 'phased') });
    assert.deepEqual(b, { sequential: firstFailed(inShard(1), 'sequential'), phased: firstFailed(inShard(1), 'phased') });
    assert.ok(a.phased > 0 && b.phased > 0);
    assert.equal(a.phased + b.phased, 19);
  });

  it('two shards, merged: the one run’s partial and decisions, byte for byte, also read back from JSON', () => {
    const merged = mergePartials(parts[0].partial, parts[1].partial);
    assert.equal(text(merged), text(whole.partial));
    const one = decisions(decisionReport(whole.analyzer, whole.evidence, DEFAULT_THRESHOLDS));
    assert.equal(decisions(decisionReportOf(merged, DEFAULT_THRESHOLDS, WITH_PLANTED)), one);
    const read = parts.map((p, i) => decodePartial(text(p.partial), `p${i}.json`, undefined, WITH_PLANTED)) as [PartialState, PartialState];
    assert.equal(text(read[0]), text(parts[0].partial));
    assert.equal(decisions(decisionReportOf(mergePartials(read[1], read[0]), DEFAULT_THRESHOLDS, WITH_PLANTED)), one);
  });

  it('the fleet over two peers’ partials decides as the one run', () => {
    const fleet = new FleetState({ keepForMs: 60_000, thresholds: DEFAULT_THRESHOLDS, rules: WITH_PLANTED });
    fleet.roster(['a', 'b'], 0);
    fleet.received('a', text(parts[0].partial), 1000);
    fleet.received('b', text(parts[1].partial), 1000);
    const view = fleet.view(2000);
    assert.deepEqual(view.covered, ['a', 'b']);
    assert.equal(decisions(view.decisions!), decisions(decisionReport(whole.analyzer, whole.evidence, DEFAULT_THRESHOLDS)));
    assert.deepEqual(planted(view.decisions!).firstOpFailed, { sequential: 30, phased: 19 });
  });

  it('the published schema accepts it; the production list’s partial has no rules key', () => {
    const ajv = new Ajv({ allErrors: true, strict: true });
    const validate = ajv.compile(JSON.parse(readFileSync(join(REPO, 'docs/partial.schema.json'), 'utf8')) as object);
    assert.ok(validate(JSON.parse(text(whole.partial))), JSON.stringify(validate.errors));
    assert.equal('rules' in evidenceJson(run(RULES).partial), false);
  });

  it('refuses a partial made with other rules: not merged, and read with each problem at its field', () => {
    const plain = run(RULES, (r) => objectHash(r.controller, r.object) % 2 === 1, 1, 2).partial;
    assert.throws(
      () => mergePartials(parts[0].partial, plain),
      (e: unknown) => e instanceof MergeError && e.message === 'controller gadget: the partials carry the evidence of different rules (planted and none)',
    );
    const problems = (json: string, rules: readonly Rule[]): readonly string[] => {
      try {
        decodePartial(json, 'p.json', undefined, rules);
      } catch (e) {
        if (e instanceof ValidationError) return e.problems;
        throw e;
      }
      return assert.fail('the partial was read');
    };
    assert.deepEqual(problems(text(parts[0].partial), RULES), ['p.json:1 controllers[0].evidence.rules: unknown field (no rule declares evidence of its own)']);
    assert.deepEqual(problems(text(plain), WITH_PLANTED), ['p.json:1 controllers[0].evidence.rules: required (the rules with evidence of their own: planted)']);
    const wrong = text(parts[0].partial).replace(/"rules":\{"planted":\{"sequential":\d+,/, '"rules":{"planted":{"sequential":-1,');
    assert.notEqual(wrong, text(parts[0].partial));
    assert.deepEqual(problems(wrong, WITH_PLANTED), [
      'p.json:1 controllers[0].evidence.rules.planted.sequential: expected a count (a non-negative integer), got -1',
    ]);
  });
});
