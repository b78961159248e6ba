/**
 * The series the alerts and dashboards join on, as the sidecar's publishers write them: one
 * `reconcile_shadow_operation_info` per model operation with its group and category (the critical-operation alert
 * and the failure-rate panel), and `reconcile_shadow_recreation_stuck_threshold_seconds` per kind (the oldest
 * recreation panel).
 */
import { deepStrictEqual } from 'node:assert/strict';
import { Analyzer } from '../../../analyzer/analyzer.js';
import { createMetrics } from '../../../outputs/metrics/registry.js';
import { MetricsPublisher } from '../../../outputs/metrics/publisher.js';
import { trackerOptions } from '../../../analyzer/recreations/config.js';
import { RecreationMetrics } from '../../../outputs/metrics/recreations.js';
import { RecreationTracker } from '../../../analyzer/recreations/tracker.js';
import { resolveModel } from '../../../sidecar/files.js';
import { parsePrometheusText, type Sample } from '../../support/prometheus-text.js';

async function scrape(metrics: ReturnType<typeof createMetrics>): Promise<Sample[]> {
  return parsePrometheusText(await metrics.registry.metrics());
}

describe('published series the alerts and dashboards join on', () => {
  it('reconcile_shadow_operation_info: every operation of the model once, with its phased-loop group and category', async () => {
    const model = resolveModel('hypershift-hostedcluster');
    const metrics = createMetrics();
    new MetricsPublisher(metrics.metrics, new Analyzer([model]).controllers, () => 0, { version: 'test' });
    const info = (await scrape(metrics)).filter((s) => s.name === 'reconcile_shadow_operation_info');

    deepStrictEqual(
      info.map((s) => s.labels.operation),
      model.operations.map((o) => o.name),
    );
    deepStrictEqual([...new Set(info.map((s) => s.value))], [1]);
    const labelsOf = (operation: string): Readonly<Record<string, string>> | undefined => info.find((s) => s.labels.operation === operation)?.labels;
    deepStrictEqual(labelsOf('PullSecretSync'), { controller: 'hostedcluster', operation: 'PullSecretSync', group: 'PullSecretSync', category: 'critical' });
    deepStrictEqual(labelsOf('HostedControlPlane'), {
      controller: 'hostedcluster',
      operation: 'HostedControlPlane',
      group: 'CoreHCPChain',
      category: 'critical',
    });
    deepStrictEqual(labelsOf('SSHKeySync'), { controller: 'hostedcluster', operation: 'SSHKeySync', group: 'SSHKeySync', category: 'nonCritical' });
    deepStrictEqual(labelsOf('GetHCP'), { controller: 'hostedcluster', operation: 'GetHCP', group: '', category: 'failFast' });
    deepStrictEqual(labelsOf('ManagedHSMVersionCheck'), {
      controller: 'hostedcluster',
      operation: 'ManagedHSMVersionCheck',
      group: 'ManagedHSMVersionCheck',
      category: 'critical',
    });
    // What the critical-operation alert selects: the ops of the model's critical groups, `only: phased` ones included.
    deepStrictEqual(
      info
        .filter((s) => s.labels.category === 'critical')
        .map((s) => s.labels.operation)
        .sort(),
      [
        'AutoscalerAndNTHNeeded',
        'CAPICluster',
        'CAPIInfraCR',
        'ControlPlaneNamespace',
        'GetCPOImage',
        'GetPullSecretBytes',
        'HostedControlPlane',
        'ManagedHSMVersionCheck',
        'PlatformCredentials',
        'PullSecretSync',
        'ReleaseImageVersion',
        'SecretEncryptionSync',
      ],
    );
  });

  it('reconcile_shadow_recreation_stuck_threshold_seconds: the configured threshold of every kind, from the tracker options', async () => {
    const tracker = trackerOptions({ stuckThresholdsMs: { default: 300_000, Job: 1_500 } });
    const metrics = createMetrics();
    const publisher = new RecreationMetrics(metrics.metrics, { maxStuckSeries: 50, kinds: ['Job', 'Deployment'], stuckThresholdMs: tracker.stuckThresholdMs });
    publisher.update(new RecreationTracker(tracker).snapshot(0));
    const thresholds = (await scrape(metrics)).filter((s) => s.name === 'reconcile_shadow_recreation_stuck_threshold_seconds');
    deepStrictEqual(
      thresholds.map((s) => [s.labels.kind, s.value]),
      [
        ['Job', 1.5],
        ['Deployment', 300],
      ],
    );
  });
});
