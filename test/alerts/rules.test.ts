import { deepStrictEqual, match, ok, strictEqual, throws } from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { alertOptions, isDuration } from '../../alerts/options.js';
import { prometheusRule, rulesFile, runbookAnchor } from '../../alerts/render.js';
import { ALERT_PREFIX, alertRuleGroups, type AlertRule } from '../../alerts/rules.js';
import { packageRoot } from '../../lib/package-root.js';

const root = packageRoot();
const options = alertOptions();
const rules: AlertRule[] = alertRuleGroups(options).flatMap((g) => [...g.rules]);
const ruleNamed = (rs: readonly AlertRule[], name: string): AlertRule => {
  const rule = rs.find((r) => r.alert === name);
  if (!rule) throw new Error(`no rule ${name}`);
  return rule;
};

describe('alerts/rules: mixin conventions', () => {
  it('ships its alerts, each named once with the shared prefix', () => {
    deepStrictEqual(
      rules.map((r) => r.alert),
      [
        'ReconcileShadowRecreationStuck',
        'ReconcileShadowRecreationStuckCritical',
        'ReconcileShadowRecreationTrackingCapped',
        'ReconcileShadowOperationStarved',
        'ReconcileShadowOperationNewlyBlocked',
        'ReconcileShadowCriticalOperationFailing',
        'ReconcileShadowDown',
        'ReconcileShadowSourceDown',
        'ReconcileShadowSourceSilent',
        'ReconcileShadowNoSourceData',
        'ReconcileShadowRecordsDropped',
        'ReconcileShadowPhasedLoopHarm',
        'ReconcileShadowVerdictChecksFailing',
        'ReconcileShadowFleetPeerMissing',
      ],
    );
    for (const r of rules) match(r.alert, new RegExp(`^${ALERT_PREFIX}[A-Z][A-Za-z]+$`));
  });

  it('gives every alert a severity, a static summary sentence, a templated description and a for: duration', () => {
    for (const r of rules) {
      ok(['critical', 'warning', 'info'].includes(r.severity), r.alert);
      match(r.summary, /^[A-Z].*\.$/, `${r.alert} summary`);
      ok(!r.summary.includes('{{'), `${r.alert} summary must be static`);
      match(r.description, /\{\{ (with )?(\$labels\.\w+|\$value)/, `${r.alert} description names labels or the value`);
      ok(isDuration(r.for), `${r.alert} for: ${r.for}`);
    }
  });

  it('links every alert to its own section of alerts/runbook.md, and the runbook has no section without an alert', () => {
    const runbook = readFileSync(join(root, 'alerts', 'runbook.md'), 'utf8');
    const sections = [...runbook.matchAll(/^## (\S+)$/gm)].map((m) => m[1]!);
    deepStrictEqual(
      sections,
      rules.map((r) => r.alert),
    );
    const file = parse(rulesFile(alertRuleGroups(options), options)) as { groups: { rules: { alert: string; annotations: { runbook_url: string } }[] }[] };
    for (const r of file.groups.flatMap((g) => g.rules)) {
      strictEqual(r.annotations.runbook_url, `${options.runbookUrl}#${runbookAnchor(r.alert)}`);
      for (const heading of ['**Meaning.**', '**Likely causes.**', '**What to check.**', '**How to silence.**']) {
        const section = runbook.slice(runbook.indexOf(`## ${r.alert}\n`)).split(/\n## /)[0]!;
        ok(section.includes(heading), `${r.alert}: runbook section lacks ${heading}`);
      }
    }
  });

  it('wraps exactly the rules file’s groups in the PrometheusRule object', () => {
    const plain = parse(rulesFile(alertRuleGroups(options), options)) as { groups: unknown };
    const object = parse(prometheusRule(alertRuleGroups(options), options)) as {
      apiVersion: string;
      kind: string;
      metadata: { name: string };
      spec: { groups: unknown };
    };
    strictEqual(object.apiVersion, 'monitoring.coreos.com/v1');
    strictEqual(object.kind, 'PrometheusRule');
    strictEqual(object.metadata.name, 'reconcile-shadow');
    deepStrictEqual(object.spec.groups, plain.groups);
  });
});

describe('alerts/options: thresholds and for: chosen at generation time', () => {
  it('applies overrides field by field and keeps the other defaults', () => {
    const custom = alertOptions({ selector: 'job="shadow",cluster="prod"', recreationStuckCritical: { seconds: 3600 }, operationStarved: { for: '20m' } });
    const rs = alertRuleGroups(custom).flatMap((g) => [...g.rules]);
    const critical = ruleNamed(rs, 'ReconcileShadowRecreationStuckCritical');
    strictEqual(critical.expr, 'max by (kind, namespace, name) (reconcile_shadow_recreation_stuck_seconds{job="shadow",cluster="prod"}) > 3600');
    strictEqual(critical.for, '5m');
    strictEqual(ruleNamed(rs, 'ReconcileShadowOperationStarved').for, '20m');
    strictEqual(
      ruleNamed(rs, 'ReconcileShadowOperationStarved').expr,
      'max by (controller, operation) (reconcile_shadow_operation_starved_seconds{job="shadow",cluster="prod"}) > 1800',
    );
    // Ignored drop reasons are matched literally: regex metacharacters are escaped.
    const dropped = ruleNamed(
      alertRuleGroups(alertOptions({ recordsDropped: { ignoreReasons: ['shutdown', 'a.b'] } })).flatMap((g) => [...g.rules]),
      'ReconcileShadowRecordsDropped',
    );
    match(dropped.expr, /reconcile_shadow_records_dropped_total\{job="reconcile-shadow",reason!~"shutdown\|a\\\\\.b"\}/);
  });

  it('takes the critical operations from the info series the sidecar publishes, not from models known at generation time', () => {
    const custom = alertOptions({ selector: 'job="shadow"', criticalOperationFailing: { errorRatio: 0.25, window: '30m' } });
    strictEqual(
      ruleNamed(
        alertRuleGroups(custom).flatMap((g) => [...g.rules]),
        'ReconcileShadowCriticalOperationFailing',
      ).expr,
      '(sum by (controller, operation) (rate(reconcile_shadow_operation_observed_total{job="shadow",outcome="error"}[30m])) / sum by (controller, operation) (rate(reconcile_shadow_operation_observed_total{job="shadow",outcome=~"ok|error|stop"}[30m])) > 0.25) * on (controller, operation) group_left (group) max by (controller, operation, group) (reconcile_shadow_operation_info{job="shadow",category="critical"})',
    );
  });

  it('refuses options Prometheus would reject or that make an alert meaningless, naming each field', () => {
    throws(
      () => alertOptions({ sidecarDown: { for: '5 minutes' }, newlyBlocked: { window: '0m' }, operationStarved: { seconds: -1 } }),
      (e: Error) =>
        e.message ===
        'alert options: operationStarved.seconds: must be a positive number; newlyBlocked.window: "0m" is not a Prometheus duration (e.g. 30s, 5m, 1h); sidecarDown.for: "5 minutes" is not a Prometheus duration (e.g. 30s, 5m, 1h)',
    );
    throws(() => alertOptions({ criticalOperationFailing: { errorRatio: 1 } }), /errorRatio: must be at least 0 and below 1/);
    throws(() => alertOptions({ selector: '{job="x"}' }), /selector: give matchers without braces/);
  });
});
