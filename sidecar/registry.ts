/**
 * Every component the sidecar can run, one line each: the sources of the attempt pipeline (under `sources:` in the
 * config), the inputs of the recreation pipeline (under `recreations:`), and the outputs (each under its own
 * top-level key, if it has a config). Sources start in this order, the recreation inputs first, the HyperFleet API
 * before the objects (its first poll is awaited, so objects are read against the clusters' real state), and stop in
 * the reverse order. Adding a source is one folder with a component.ts (collector/component.ts) and one line below.
 */
import { hyperfleet } from '../collector/hyperfleet/component.js';
import { journal } from '../collector/journal/component.js';
import { logs } from '../collector/logs/component.js';
import { maestro } from '../collector/maestro/component.js';
import { objects } from '../collector/objects/component.js';
import { otlp } from '../collector/otlp/component.js';
import { peers } from '../collector/peers/component.js';
import { status } from '../collector/status/component.js';
import type { Field } from '../lib/schema.js';
import { fleet } from '../outputs/fleet/component.js';
import { metrics } from '../outputs/metrics/component.js';
import { partial } from '../outputs/partial/component.js';
import { consoleOutput } from '../outputs/console/component.js';
import { summary } from '../outputs/summary/component.js';
import { traces } from '../outputs/traces/component.js';
import { simulator } from '../simulator/component.js';

/** By their key under `sources:`. */
export const SOURCES = { journal, simulator, otlp, logs, status, peers } as const;

/** By their key under `recreations:`; `objects` runs whenever the section is there (it says where the cluster is). */
export const RECREATION_INPUTS = { hyperfleet, maestro, objects } as const;

/** By their top-level key; the metrics and fleet outputs have no config. */
export const OUTPUTS = { metrics, summary, partial, traces, console: consoleOutput, fleet } as const;

type Sections<R> = { [K in keyof R as R[K] extends { readonly schema: Field } ? K : never]: R[K] extends { readonly schema: infer F } ? F : never };

/** The config schemas of `components`, by their keys (those without a config left out): a section of the config schema. */
export function sectionsOf<const R extends Readonly<Record<string, { readonly schema: Field | undefined }>>>(components: R): Sections<R> {
  const entries = Object.entries(components).flatMap(([key, c]) => (c.schema === undefined ? [] : [[key, c.schema] as const]));
  // Object.fromEntries loses the keys' types; Sections<R> is exactly what the line above builds.
  return Object.fromEntries(entries) as Sections<R>;
}
