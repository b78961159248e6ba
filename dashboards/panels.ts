/**
 * The few panel shapes both dashboards use, on top of the Grafana Foundation SDK (pinned 0.0.21; the v1
 * DashboardBuilder, because file and ConfigMap provisioning read the v1 JSON). Every panel queries the
 * `$datasource` variable, so one JSON works against any Prometheus, and every query selects the sidecars the
 * `$namespace`, `$job` and `$instance` variables name: one sidecar runs beside each operator replica, so a panel can
 * show one of them, some, or all.
 */
import {
  LegendDisplayMode,
  LegendPlacement,
  GraphThresholdsStyleConfigBuilder,
  GraphThresholdsStyleMode,
  StackingConfigBuilder,
  StackingMode,
  TableSortByFieldStateBuilder,
  VizLegendOptionsBuilder,
} from '@grafana/grafana-foundation-sdk/common';
import {
  DashboardLinkBuilder,
  DashboardLinkType,
  DatasourceVariableBuilder,
  type Dashboard,
  QueryVariableBuilder,
  ThresholdsConfigBuilder,
  ThresholdsMode,
  VariableRefresh,
  VariableSort,
  type DataSourceRef,
} from '@grafana/grafana-foundation-sdk/dashboard';
import { PanelBuilder as HeatmapPanelBuilder, YAxisConfigBuilder } from '@grafana/grafana-foundation-sdk/heatmap';
import { DataqueryBuilder, PromQueryFormat } from '@grafana/grafana-foundation-sdk/prometheus';
import { PanelBuilder as StatPanelBuilder } from '@grafana/grafana-foundation-sdk/stat';
import { PanelBuilder as TablePanelBuilder } from '@grafana/grafana-foundation-sdk/table';
import { PanelBuilder as TimeseriesPanelBuilder } from '@grafana/grafana-foundation-sdk/timeseries';

export const DATASOURCE: DataSourceRef = { type: 'prometheus', uid: '${datasource}' };
export const TAGS = ['reconcile-shadow', 'generated'];

export function datasourceVariable(): DatasourceVariableBuilder {
  return new DatasourceVariableBuilder('datasource').label('Data source').type('prometheus');
}

/** The matchers every query carries: the sidecars the variables select. */
export const SIDECARS = 'namespace=~"$namespace",job=~"$job",instance=~"$instance"';

/**
 * The same for the per-object stuck series, whose `namespace` label is the stuck object's own (the ServiceMonitor's
 * honorLabels keeps it): job and instance alone pick the sidecar.
 */
export const SIDECARS_BY_TARGET = 'job=~"$job",instance=~"$instance"';

/**
 * `$namespace`, `$job` and `$instance`, each listing the values among the sidecars the ones before it select
 * (from reconcile_shadow_info, which every sidecar exports once).
 */
export function sidecarVariables(): QueryVariableBuilder[] {
  return [
    labelVariable('namespace', 'Namespace', 'reconcile_shadow_info'),
    labelVariable('job', 'Job', 'reconcile_shadow_info{namespace=~"$namespace"}'),
    labelVariable('instance', 'Sidecar', 'reconcile_shadow_info{namespace=~"$namespace",job=~"$job"}'),
  ];
}

/** A multi-value filter over one label, listing the values the given series (a selector) carries. */
export function labelVariable(name: string, label: string, series: string): QueryVariableBuilder {
  return new QueryVariableBuilder(name)
    .label(label)
    .datasource(DATASOURCE)
    .query(`label_values(${series}, ${name})`)
    .multi(true)
    .includeAll(true)
    .allValue('.*')
    .refresh(VariableRefresh.OnTimeRangeChanged)
    .sort(VariableSort.AlphabeticalAsc);
}

/** Links to the other reconcile-shadow dashboards, keeping time range and variables. */
export function dashboardLinks(): DashboardLinkBuilder {
  return new DashboardLinkBuilder('Reconcile shadow')
    .type(DashboardLinkType.Dashboards)
    .tags(['reconcile-shadow'])
    .asDropdown(true)
    .keepTime(true)
    .includeVars(true);
}

export function query(expr: string, legend: string): DataqueryBuilder {
  return new DataqueryBuilder().expr(expr).legendFormat(legend);
}

export function instantTable(expr: string): DataqueryBuilder {
  return new DataqueryBuilder().expr(expr).instant().format(PromQueryFormat.Table);
}

interface Size {
  readonly span: number;
  readonly height?: number;
}

export function timeseries(title: string, description: string, unit: string, size: Size, ...targets: DataqueryBuilder[]): TimeseriesPanelBuilder {
  const panel = new TimeseriesPanelBuilder()
    .title(title)
    .description(description)
    .datasource(DATASOURCE)
    .unit(unit)
    .min(0)
    .span(size.span)
    .height(size.height ?? 8)
    .legend(
      new VizLegendOptionsBuilder().showLegend(true).displayMode(LegendDisplayMode.Table).placement(LegendPlacement.Bottom).calcs(['lastNotNull', 'max']),
    );
  for (const t of targets) panel.withTarget(t);
  return panel;
}

export function stacked(panel: TimeseriesPanelBuilder): TimeseriesPanelBuilder {
  return panel.stacking(new StackingConfigBuilder().mode(StackingMode.Normal)).fillOpacity(30);
}

/** Dashed threshold lines on a time series panel, each `[value, colour]`, below the first one green. */
export function withThresholdLines(panel: TimeseriesPanelBuilder, lines: readonly (readonly [number, string])[]): TimeseriesPanelBuilder {
  const steps = [{ value: null, color: 'green' }, ...lines.map(([value, color]) => ({ value, color }))];
  return panel
    .thresholds(new ThresholdsConfigBuilder().mode(ThresholdsMode.Absolute).steps(steps))
    .thresholdsStyle(new GraphThresholdsStyleConfigBuilder().mode(GraphThresholdsStyleMode.Dashed));
}

/**
 * A table of one instant query: one row per label set, the value column renamed and sorted descending.
 * `columns` are the labels the query aggregates by, in display order; the Time column is hidden.
 */
export function table(
  title: string,
  description: string,
  unit: string,
  size: Size,
  expr: string,
  columns: readonly string[],
  valueName: string,
): TablePanelBuilder {
  const indexByName = Object.fromEntries([...columns, 'Value'].map((c, i) => [c, i]));
  return new TablePanelBuilder()
    .title(title)
    .description(description)
    .datasource(DATASOURCE)
    .unit(unit)
    .span(size.span)
    .height(size.height ?? 8)
    .withTarget(instantTable(expr))
    .withTransformation({ id: 'organize', options: { excludeByName: { Time: true }, indexByName, renameByName: { Value: valueName } } })
    .sortBy([new TableSortByFieldStateBuilder().displayName(valueName).desc(true)]);
}

export function stat(title: string, description: string, unit: string, size: Size, target: DataqueryBuilder): StatPanelBuilder {
  return new StatPanelBuilder()
    .title(title)
    .description(description)
    .datasource(DATASOURCE)
    .unit(unit)
    .span(size.span)
    .height(size.height ?? 8)
    .withTarget(target);
}

/** A heatmap of Prometheus histogram buckets (already bucketed, so Grafana must not re-bucket). */
export function heatmap(title: string, description: string, size: Size, expr: string): HeatmapPanelBuilder {
  return new HeatmapPanelBuilder()
    .title(title)
    .description(description)
    .datasource(DATASOURCE)
    .span(size.span)
    .height(size.height ?? 8)
    .calculate(false)
    .yAxis(new YAxisConfigBuilder().unit('s'))
    .withTarget(new DataqueryBuilder().expr(expr).legendFormat('{{le}}').format(PromQueryFormat.Heatmap));
}

/**
 * Stable panel ids, 1..n in layout order. The builder leaves panels without one and gives every row 0; Grafana
 * would renumber them on load, and links to a panel (`viewPanel=`) would not survive a regeneration.
 */
export function numberPanels(dashboard: Dashboard): Dashboard {
  return { ...dashboard, panels: dashboard.panels?.map((p, i) => ({ ...p, id: i + 1 })) };
}
