/**
 * Managed objects from Kubernetes: one resilient informer (collector/kube/informer.ts) per watched kind, namespace
 * and label selector, each add/update/delete handed on as an ADDED/MODIFIED/DELETED observation at the time it
 * arrived. The informer delivers every change exactly once across reconnects and relists, so a deletion that
 * happened while the watch was down still arrives as DELETED. Objects that are not valid Kubernetes objects are
 * rejected under `invalid_object`, naming the collection and object.
 */
import type { KubeConfig } from '@kubernetes/client-node';
import type { BackoffOptions } from '../kube/backoff.js';
import { ResilientInformer, SYSTEM_TIMERS, type RawKubeObject, type Timers } from '../kube/informer.js';
import type { SourceHooks } from '../component.js';
import type { Source } from '../records.js';
import { ObservationProblem, toManagedObject, type ObjectEvent, type ObjectWatch, type ObservationSink } from './observation.js';

export interface KubeObjectSourceOptions {
  readonly kubeConfig: KubeConfig;
  readonly watches: readonly ObjectWatch[];
  /** Plurals for kinds where lower-case kind + s/es/ies is wrong. */
  readonly plurals?: Readonly<Record<string, string>>;
  readonly timers?: Timers;
  readonly backoff?: Partial<BackoffOptions>;
  /** The sidecar's health hooks: each watch (the `part`) connecting (after its list) or losing its connection, and failures (retried with backoff). */
  readonly hooks?: Pick<SourceHooks, 'state' | 'error'>;
}

/** `Job` → `jobs`, `Ingress` → `ingresses`, `NetworkPolicy` → `networkpolicies`, `Endpoints` → `endpoints`. */
export function pluralOf(kind: string, plurals: Readonly<Record<string, string>> = {}): string {
  const given = plurals[kind];
  if (given) return given;
  const k = kind.toLowerCase();
  if (/(ss|x|z|ch|sh)$/.test(k)) return `${k}es`;
  if (k.endsWith('s')) return k;
  if (/[^aeiou]y$/.test(k)) return `${k.slice(0, -1)}ies`;
  return `${k}s`;
}

/** The collection path of a watch, e.g. `/apis/batch/v1/namespaces/hf/jobs` or `/api/v1/configmaps`. */
export function collectionPath(w: ObjectWatch, plurals?: Readonly<Record<string, string>>): string {
  const base = w.apiVersion.includes('/') ? `/apis/${w.apiVersion}` : `/api/${w.apiVersion}`;
  const plural = pluralOf(w.kind, plurals);
  return w.namespace === undefined ? `${base}/${plural}` : `${base}/namespaces/${w.namespace}/${plural}`;
}

export class KubeObjectSource implements Source {
  readonly kind = 'objects' as const;
  private readonly informers: ResilientInformer[] = [];

  constructor(
    private readonly options: KubeObjectSourceOptions,
    private readonly sink: ObservationSink,
  ) {}

  /** Starts every watch; failures are retried with backoff (reported to the hooks), so start itself never fails. */
  start(): Promise<void> {
    const timers = this.options.timers ?? SYSTEM_TIMERS;
    for (const w of this.options.watches) {
      const path = collectionPath(w, this.options.plurals);
      const hand = (event: ObjectEvent) => (raw: RawKubeObject) => this.handOn(w, path, event, raw, timers.now());
      const informer = new ResilientInformer(
        {
          kubeConfig: this.options.kubeConfig,
          path,
          ...(w.labelSelector ? { labelSelector: w.labelSelector } : {}),
          ...(this.options.backoff ? { backoff: this.options.backoff } : {}),
          timers,
        },
        {
          add: hand('ADDED'),
          update: hand('MODIFIED'),
          delete: hand('DELETED'),
          state: (up) => this.options.hooks?.state(up, w),
          error: (err) => this.options.hooks?.error(err),
        },
      );
      this.informers.push(informer);
      informer.start();
    }
    return Promise.resolve();
  }

  /** Resolves once every watch has delivered its first list. */
  async whenSynced(): Promise<void> {
    await Promise.all(this.informers.map((i) => i.whenSynced()));
  }

  async stop(): Promise<void> {
    await Promise.all(this.informers.map((i) => i.stop()));
    this.informers.length = 0;
  }

  private handOn(w: ObjectWatch, path: string, event: ObjectEvent, raw: RawKubeObject, nowMs: number): void {
    // List items of built-in types come without apiVersion and kind; the watch says what they are.
    const value = { ...raw, apiVersion: raw.apiVersion ?? w.apiVersion, kind: raw.kind ?? w.kind };
    try {
      this.sink.observe({ type: 'object', time: new Date(nowMs).toISOString(), timeMs: nowMs, event, object: toManagedObject(value), source: 'objects' });
    } catch (e) {
      if (!(e instanceof ObservationProblem)) throw e;
      const name = `${raw.metadata?.namespace ?? ''}/${raw.metadata?.name ?? '?'}`;
      this.sink.reject({ source: 'objects', reason: e.reason, where: `${path} ${name}`, message: e.message });
    }
  }
}
