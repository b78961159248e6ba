/** The parts of a built dashboard the tests read, as plain JSON. */
import type { Dashboard } from '@grafana/grafana-foundation-sdk/dashboard';

export interface PanelJson {
  readonly id?: number;
  readonly type: string;
  readonly title: string;
  readonly description?: string;
  readonly datasource?: { readonly type: string; readonly uid: string };
  readonly targets?: readonly { readonly expr: string; readonly legendFormat?: string; readonly format?: string; readonly instant?: boolean }[];
  readonly options?: Record<string, unknown>;
  readonly fieldConfig?: {
    readonly defaults: {
      readonly unit?: string;
      readonly thresholds?: { readonly steps: readonly { readonly value: number | null; readonly color: string }[] };
    };
    readonly overrides?: readonly unknown[];
  };
  readonly gridPos?: { readonly x: number; readonly y: number; readonly w: number; readonly h: number };
}

export interface DashboardJson {
  readonly title: string;
  readonly uid: string;
  readonly tags: readonly string[];
  readonly templating: { readonly list: readonly { readonly type: string; readonly name: string; readonly query: string | Record<string, unknown> }[] };
  readonly panels: readonly PanelJson[];
}

export function asJson(dashboard: Dashboard): DashboardJson {
  return JSON.parse(JSON.stringify(dashboard)) as DashboardJson;
}

export const contentPanels = (d: DashboardJson): PanelJson[] => d.panels.filter((p) => p.type !== 'row');

export function panel(d: DashboardJson, title: string): PanelJson {
  const found = d.panels.find((p) => p.title === title);
  if (!found) throw new Error(`${d.title}: no panel "${title}"`);
  return found;
}
