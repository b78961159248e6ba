/**
 * ManifestWorks as the HyperFleet adapter's Maestro client sees them. A Maestro resource bundle (the REST API's
 * `ResourceBundle`) becomes the ManifestWork maestro's grpcsource ToManifestWork (pkg/client/cloudevents/grpcsource/
 * util.go) builds, with the group/version/kind hyperfleet-adapter's workToUnstructured (internal/maestroclient/
 * operations.go) sets; and the manifests inside a work are found and enriched as the adapter's nested discoveries
 * find them (internal/manifest/generation.go DiscoverNestedManifest, MatchesDiscoveryCriteria, MatchesLabels,
 * EnrichWithResourceStatus). Pure: the Maestro source and the recreation rules share it.
 */
import { isRecord } from '../../lib/is-record.js';
import { ObservationProblem, toManagedObject, type ManagedObject } from './observation.js';

export const MANIFESTWORK_API_VERSION = 'work.open-cluster-management.io/v1';
export const MANIFESTWORK_KIND = 'ManifestWork';

function problem(message: string): never {
  throw new ObservationProblem('invalid_object', message);
}

function records(value: unknown, field: string): Record<string, unknown>[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value) || !value.every(isRecord)) problem(`${field}: must be a list of objects`);
  return value;
}

/**
 * The ManifestWork of a resource bundle, as ToManifestWork builds it: metadata as the source sent it, its
 * resourceVersion and generation the bundle's version; the manifests, delete option and manifest configs as the
 * spec; the agent's status as conditions and resourceStatus.manifests. A bundle's metadata without a namespace or
 * uid (a source that did not send them) takes the bundle's consumer and id, which are what they are.
 */
export function manifestWorkOfBundle(bundle: unknown): Record<string, unknown> {
  if (!isRecord(bundle)) problem('resource bundle: must be an object');
  const { id, version, consumer_name: consumer, name } = bundle;
  if (typeof id !== 'string' || id === '') problem('resource bundle.id: required string');
  if (typeof version !== 'number' || !Number.isInteger(version) || version < 0)
    problem(`resource bundle.version: must be a non-negative integer, got ${JSON.stringify(version)}`);
  if (bundle.metadata !== undefined && bundle.metadata !== null && !isRecord(bundle.metadata)) problem('resource bundle.metadata: must be an object');
  const metadata: Record<string, unknown> = { ...(isRecord(bundle.metadata) ? bundle.metadata : {}) };
  if (metadata.name === undefined && typeof name === 'string') metadata.name = name;
  if (metadata.namespace === undefined && typeof consumer === 'string') metadata.namespace = consumer;
  if (metadata.uid === undefined) metadata.uid = id;
  metadata.resourceVersion = String(version);
  metadata.generation = version;
  const spec: Record<string, unknown> = { workload: { manifests: records(bundle.manifests, 'resource bundle.manifests') } };
  if (isRecord(bundle.delete_option) && Object.keys(bundle.delete_option).length > 0) spec.deleteOption = bundle.delete_option;
  spec.manifestConfigs = records(bundle.manifest_configs, 'resource bundle.manifest_configs');
  const work: Record<string, unknown> = { apiVersion: MANIFESTWORK_API_VERSION, kind: MANIFESTWORK_KIND, metadata, spec };
  const status = bundle.status;
  if (status !== undefined && status !== null) {
    if (!isRecord(status)) problem('resource bundle.status: must be an object');
    const conditions = records(status.conditions, 'resource bundle.status.conditions');
    const manifests = records(status.resourceStatus, 'resource bundle.status.resourceStatus');
    work.status = { ...(conditions.length > 0 ? { conditions } : {}), ...(manifests.length > 0 ? { resourceStatus: { manifests } } : {}) };
  }
  return work;
}

/**
 * A bundle as a managed object: its ManifestWork (what the rules see), with the deletion request the bundle's
 * `deleted_at` records, and created at its `created_at` unless its metadata says when. The ManifestWork itself
 * carries no deletionTimestamp (ToManifestWork sets none): Maestro deletes asynchronously, and the bundle is listed
 * with `deleted_at` until the agent has deleted the manifests. Its uid is derived from source, consumer and name
 * (sdk-go utils.UID), so a work recreated under the same name has the same uid as the one it replaces.
 */
export function managedObjectOfBundle(bundle: unknown): ManagedObject {
  const object = toManagedObject(manifestWorkOfBundle(bundle));
  const b = bundle as Record<string, unknown>;
  const createdAtMs = object.creationTimestampMs ?? bundleTime(b.created_at, 'created_at');
  const deletionTimestampMs = bundleTime(b.deleted_at, 'deleted_at');
  return {
    ...object,
    ...(createdAtMs === undefined ? {} : { creationTimestampMs: createdAtMs }),
    ...(deletionTimestampMs === undefined ? {} : { deletionTimestampMs }),
  };
}

function bundleTime(value: unknown, field: string): number | undefined {
  if (value === undefined || value === null) return undefined;
  const ms = typeof value === 'string' ? Date.parse(value) : NaN;
  if (Number.isNaN(ms)) problem(`resource bundle.${field}: ${JSON.stringify(value)} is not an RFC 3339 time`);
  return ms;
}

/** A nested discovery: by name (then labels are not looked at), or by labels, optionally in one namespace. */
export interface NestedDiscovery {
  readonly namespace?: string;
  readonly byName?: string;
  readonly labels?: Readonly<Record<string, string>>;
}

/**
 * The manifests of a ManifestWork a nested discovery finds, in their order in the work, each a copy with the
 * agent's `statusFeedback` and `conditions` for it (status.resourceStatus.manifests[] whose resourceMeta has its
 * name and namespace) at its top level, as the adapter's rules see them.
 */
export function nestedManifests(work: Readonly<Record<string, unknown>>, discovery: NestedDiscovery): Record<string, unknown>[] {
  const spec = work.spec;
  const workload = isRecord(spec) ? spec.workload : undefined;
  const manifests = isRecord(workload) && Array.isArray(workload.manifests) ? workload.manifests : [];
  const status = isRecord(work.status) ? work.status.resourceStatus : undefined;
  const statuses = isRecord(status) && Array.isArray(status.manifests) ? status.manifests.filter(isRecord) : [];
  const out: Record<string, unknown>[] = [];
  for (const m of manifests) {
    if (!isRecord(m) || !matches(m, discovery)) continue;
    const nested: Record<string, unknown> = { ...m };
    const meta = metaOf(m);
    const entry = statuses.find((s) => {
      const rm = s.resourceMeta;
      return isRecord(rm) && typeof rm.name === 'string' && typeof rm.namespace === 'string' && rm.name === meta.name && rm.namespace === meta.namespace;
    });
    if (entry && 'statusFeedback' in entry) nested.statusFeedback = entry.statusFeedback;
    if (entry && 'conditions' in entry) nested.conditions = entry.conditions;
    out.push(nested);
  }
  return out;
}

function metaOf(m: Record<string, unknown>): { name: string; namespace: string; labels: Record<string, unknown> } {
  const md = isRecord(m.metadata) ? m.metadata : {};
  return {
    name: typeof md.name === 'string' ? md.name : '',
    namespace: typeof md.namespace === 'string' ? md.namespace : '',
    labels: isRecord(md.labels) ? md.labels : {},
  };
}

function matches(m: Record<string, unknown>, d: NestedDiscovery): boolean {
  const meta = metaOf(m);
  if (d.namespace && meta.namespace !== d.namespace) return false;
  if (d.byName) return meta.name === d.byName;
  return Object.entries(d.labels ?? {}).every(([k, v]) => meta.labels[k] === v);
}
