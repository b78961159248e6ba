import { deepStrictEqual, throws } from 'node:assert/strict';
import { metricNames, metricSelectors, variableQueryMetricNames } from './promql-metric-names.js';

describe('metricNames (PromQL metric names for the catalog checks)', () => {
  it('finds the metrics of selectors, skipping matchers, ranges, functions and aggregation labels', () => {
    deepStrictEqual(
      metricNames(
        'sum by (controller, operation) (rate(a_total{job="x",controller=~"$controller"}[$__rate_interval])) / on (controller) group_left(version) b_info',
      ),
      ['a_total', 'b_info'],
    );
  });

  it('reads through histogram_quantile, offsets, bool, set operators and durations', () => {
    deepStrictEqual(
      metricNames(
        'histogram_quantile(0.95, sum without (instance) (rate(h_bucket[1h30m]))) > bool 0.5 unless c offset 15m or absent(up{job="j"}) and time() - d > 1e3',
      ),
      ['c', 'd', 'h_bucket', 'up'],
    );
  });

  it('does not read names inside strings, including escaped quotes and braces', () => {
    deepStrictEqual(metricNames('x{a="fake_metric{\\"y\\"}", b=\'z\'}'), ['x']);
  });

  it('reads the series of a Grafana label_values variable query but not its label', () => {
    deepStrictEqual(variableQueryMetricNames('label_values(reconcile_shadow_attempts_total, controller)'), ['reconcile_shadow_attempts_total']);
  });

  it('refuses an expression it cannot tokenize instead of guessing', () => {
    throws(() => metricNames('x{a="open'), /unterminated string/);
    throws(() => metricNames('x{a="b"'), /unbalanced \{/);
  });

  it('lists every selector with its matchers, and a bare metric with none', () => {
    deepStrictEqual(
      metricSelectors('sum by (controller) (rate(a_total{job=~"$job",x="a_total{"}[5m])) / on (controller) group_left () b_info + time() - c{}'),
      [
        { metric: 'a_total', matchers: 'job=~"$job",x="a_total{"' },
        { metric: 'b_info', matchers: '' },
        { metric: 'c', matchers: '' },
      ],
    );
  });
});
