/**
 * A rule is its module and a line in the list: a list with a planted rule (planted-rule.ts, test-only) reaches the
 * verdict, the JSON, the review document and the fleet's rule metric, with no other file naming it; the rules of
 * the production list decide exactly as they do without it.
 */
import { strict as assert } from 'node:assert';
import { Analyzer } from '../../../analyzer/analyzer.js';
import { DecisionEvidence } from '../../../analyzer/decisions/evidence.js';
import { decisionsJson } from '../../../analyzer/decisions/json.js';
import { decisionReport, type DecisionReport } from '../../../analyzer/decisions/decide.js';
import { HARM_REASON_KINDS, REASON_KINDS, RULES } from '../../../analyzer/decisions/rules.js';
import { DEFAULT_THRESHOLDS } from '../../../analyzer/decisions/thresholds.js';
import { publishFleet } from '../../../outputs/fleet/internal/verdict-series.js';
import { createMetrics } from '../../../outputs/metrics/registry.js';
import { reportDocument } from '../../../outputs/review/document.js';
import { renderMarkdown } from '../../../outputs/review/markdown.js';
import { parsePrometheusText } from '../../support/prometheus-text.js';
import { SMALL, smallWorld } from './planted-models.js';
import { PLANTED } from './planted-rule.js';
import { plantedWorld } from './planted-world.js';

type Controller = Record<string, unknown> & { rules: Record<string, unknown>[]; reasons: Record<string, unknown>[] };

function decided(rules: typeof RULES): DecisionReport {
  const analyzer = new Analyzer([SMALL]);
  const evidence = new DecisionEvidence({ rules });
  analyzer.listen(evidence);
  for (const r of plantedWorld(smallWorld(11, { kind: 'none' }))) analyzer.attempt(r);
  return decisionReport(analyzer, evidence, DEFAULT_THRESHOLDS);
}

describe('the rule list', () => {
  let plain: DecisionReport;
  let planted: DecisionReport;
  before(() => {
    plain = decided(RULES);
    planted = decided([...RULES, PLANTED]);
  });

  it('declares each reason kind once, its harm kinds those the alerts select', () => {
    const kinds = REASON_KINDS.map((k) => k.kind);
    assert.equal(new Set(kinds).size, kinds.length);
    assert.deepEqual(HARM_REASON_KINDS, ['worse-under-phased', 'starved-under-phased', 'reordered-dependence', 'non-critical-downstream']);
  });

  it('a planted rule reaches the verdict: its outcome last, its harm a reason', () => {
    const v = planted.controllers[0]!.verdict;
    assert.deepEqual(
      v.rules.map((r) => r.rule),
      [...RULES.map((r) => r.name), 'planted'],
    );
    const outcome = v.rules.at(-1)!;
    assert.equal(outcome.status, 'fail');
    assert.deepEqual(outcome.reasons, [{ kind: 'planted-harm', harm: true, message: 'planted: 2,330 phased attempts' }]);
    // Harm on data fit to decide: the verdict, inconclusive without it (ops not yet compared), turns not-ready.
    assert.equal(plain.controllers[0]!.verdict.status, 'inconclusive');
    assert.equal(v.status, 'not-ready');
    assert.deepEqual(v.reasons[0], { kind: 'planted-harm', rule: 'planted', status: 'not-ready', early: false, message: 'planted: 2,330 phased attempts' });
  });

  it('the JSON: its entry among the rules with its details; the other rules as without it', () => {
    const json = (r: DecisionReport): Controller => (decisionsJson(r).controllers as Controller[])[0]!;
    const [without, with_] = [json(plain), json(planted)];
    assert.deepEqual(with_.rules.slice(0, -1), without.rules);
    assert.deepEqual(with_.rules.at(-1), {
      rule: 'planted',
      role: 'harm',
      status: 'fail',
      explanation: '2,330 phased attempts seen, 19 of them with a failed first op',
      measurements: [
        { name: 'phased attempts', value: 2330, threshold: 0 },
        { name: 'phased attempts whose first op failed', value: 19, threshold: null },
      ],
      reasons: [{ kind: 'planted-harm', harm: true, message: 'planted: 2,330 phased attempts' }],
      details: { phasedAttempts: 2330, firstOpFailed: { sequential: 30, phased: 19 } },
    });
    assert.equal(
      without.rules.some((r) => 'details' in r),
      false,
    );
  });

  it('the review document: a row in the table of rules, and its own section after the decisions’ sections', () => {
    const markdown = renderMarkdown(reportDocument(planted));
    assert.match(
      markdown,
      /\n\| planted \| harm \| \*\*fail\*\* \| phased attempts: 2,330 \(bar 0\); phased attempts whose first op failed: 19 \| planted: 2,330 phased attempts \|\n/,
    );
    const sections = reportDocument(planted).controllers[0]!.sections.map((s) => s.id);
    assert.deepEqual(
      sections.filter((id) => !reportDocument(plain).controllers[0]!.sections.some((s) => s.id === id)),
      ['planted'],
    );
    assert.equal(sections[sections.indexOf('classification') + 1], 'planted');
    assert.match(
      markdown,
      /### Planted: the phased loop’s attempts\n\nOnly in tests\.\n\n\| loop \| attempts \| first op failed \|\n\|---\|---:\|---:\|\n\| phased \| 2330 \| 19 \|\n/,
    );
  });

  it('the metric: reconcile_shadow_verdict_rule_passed carries it, with its role', async () => {
    const { registry, metrics } = createMetrics();
    publishFleet(metrics, { atMs: 0, peers: [], covered: [], decisions: planted, merged: undefined }, new Map(), new Map());
    const samples = parsePrometheusText(await registry.metrics()).filter((s) => s.name === 'reconcile_shadow_verdict_rule_passed');
    assert.deepEqual(
      samples.map((s) => `${s.labels.rule}/${s.labels.role}`),
      [...RULES.map((r) => `${r.name}/${r.role}`), 'planted/harm'],
    );
    assert.equal(samples.at(-1)!.value, 0);
    const reasons = parsePrometheusText(await registry.metrics()).filter((s) => s.name === 'reconcile_shadow_verdict_reasons');
    assert.equal(reasons.find((s) => s.labels.kind === 'planted-harm')?.value, 1);
  });
});
