/**
 * The generated rules against Debian's real promtool: `check rules` on both generated files, and `test rules` on
 * alerts/reconcile-shadow.rules.test.yaml, which must hold a `for:` boundary case for every alert.
 */
import { deepStrictEqual, ok, strictEqual } from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import { alertOptions } from '../../alerts/options.js';
import { rulesFile } from '../../alerts/render.js';
import { alertRuleGroups } from '../../alerts/rules.js';
import { packageRoot } from '../../lib/package-root.js';

const alertsDir = join(packageRoot(), 'alerts');
const RULES = join(alertsDir, 'reconcile-shadow.rules.yaml');
const TESTS = join(alertsDir, 'reconcile-shadow.rules.test.yaml');

function promtool(...args: string[]): { status: number | null; output: string } {
  const run = spawnSync('promtool', args, { encoding: 'utf8', timeout: 20_000 });
  if (run.error) throw run.error;
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}

interface AlertCase {
  eval_time: string;
  alertname: string;
  exp_alerts?: unknown[];
}
interface UnitTests {
  evaluation_interval: string;
  tests: { name: string; alert_rule_test?: AlertCase[] }[];
}

const minutes = (d: string): number => {
  const m = /^(\d+)m$/.exec(d);
  if (!m) throw new Error(`eval_time ${d}: the tests use whole minutes`);
  return Number(m[1]);
};

describe('alerts: promtool (Debian prometheus 2.42)', function () {
  // promtool runs as a process per check
  this.timeout(30_000);
  let tmp: string;
  before(() => {
    tmp = mkdtempSync(join(tmpdir(), 'rs-promtool-'));
  });
  after(() => rmSync(tmp, { recursive: true, force: true }));

  it('accepts the generated rules file', () => {
    const run = promtool('check', 'rules', RULES);
    strictEqual(run.status, 0, run.output);
    ok(run.output.includes('SUCCESS: 14 rules found'), run.output);
  });

  it('accepts the rule groups of the generated PrometheusRule', () => {
    const object = parse(readFileSync(join(alertsDir, 'prometheusrule.yaml'), 'utf8')) as { spec: { groups: unknown } };
    const extracted = join(tmp, 'prometheusrule-groups.yaml');
    writeFileSync(extracted, stringify({ groups: object.spec.groups }, { lineWidth: 0 }));
    const run = promtool('check', 'rules', extracted);
    strictEqual(run.status, 0, run.output);
    ok(run.output.includes('SUCCESS: 14 rules found'), run.output);
  });

  it('passes every unit test case', () => {
    const run = promtool('test', 'rules', TESTS);
    strictEqual(run.status, 0, run.output);
  });

  it('fails the unit tests when an expectation is wrong (the harness can fail)', () => {
    copyFileSync(RULES, join(tmp, 'reconcile-shadow.rules.yaml'));
    const broken = readFileSync(TESTS, 'utf8').replace('name: validate-c001}', 'name: validate-c999}');
    writeFileSync(join(tmp, 'broken.test.yaml'), broken);
    const run = promtool('test', 'rules', join(tmp, 'broken.test.yaml'));
    strictEqual(run.status, 1);
    ok(run.output.includes('validate-c999'), run.output);
  });

  it('has, for every alert, a case one evaluation before it fires (not firing) and one where it fires', () => {
    const suite = parse(readFileSync(TESTS, 'utf8')) as UnitTests;
    strictEqual(suite.evaluation_interval, '1m');
    const alerts = alertRuleGroups(alertOptions()).flatMap((g) => g.rules.map((r) => r.alert));
    const withBoundary = alerts.filter((alert) =>
      suite.tests.some((t) => {
        const cases = (t.alert_rule_test ?? []).filter((c) => c.alertname === alert);
        return cases.some(
          (fire) =>
            (fire.exp_alerts ?? []).length > 0 &&
            cases.some((quiet) => (quiet.exp_alerts ?? []).length === 0 && minutes(quiet.eval_time) === minutes(fire.eval_time) - 1),
        );
      }),
    );
    deepStrictEqual(withBoundary, alerts);
  });

  it('moves the for: boundary when the rules are generated with another for:', () => {
    const options = alertOptions({ recreationStuck: { for: '2m' } });
    writeFileSync(join(tmp, 'custom.rules.yaml'), rulesFile(alertRuleGroups(options), options));
    const labels = { severity: 'warning', kind: 'Job', namespace: 'hf-c001', name: 'validate-c001' };
    const at = (minute: number, firing: boolean): object => ({
      eval_time: `${minute}m`,
      alertname: 'ReconcileShadowRecreationStuck',
      exp_alerts: firing
        ? [
            {
              exp_labels: labels,
              exp_annotations: {
                summary: 'A recreation is stuck past its kind’s threshold.',
                description: `The recreation of Job hf-c001/validate-c001 started ${minute}m 0s ago and the new object is not available yet; it is past the stuck threshold configured for Job.`,
                runbook_url: `${options.runbookUrl}#reconcileshadowrecreationstuck`,
              },
            },
          ]
        : [],
    });
    const suite = {
      rule_files: ['custom.rules.yaml'],
      evaluation_interval: '1m',
      tests: [
        {
          interval: '1m',
          input_series: [
            {
              series: 'reconcile_shadow_recreation_stuck_seconds{job="reconcile-shadow",kind="Job",namespace="hf-c001",name="validate-c001"}',
              values: '_x10 600+60x10',
            },
          ],
          alert_rule_test: [at(11, false), at(12, true)],
        },
      ],
    };
    writeFileSync(join(tmp, 'custom.test.yaml'), stringify(suite));
    const run = promtool('test', 'rules', join(tmp, 'custom.test.yaml'));
    strictEqual(run.status, 0, run.output);
  });
});
