/**
 * The recreation shadow's cluster-wide, read-only RBAC, generated from the kinds an adapter's task config names: one
 * rule per API group, get/list/watch on the plural of each kind the shadow watches (its Kubernetes-transport
 * resources, Namespaces included when the task config creates them, as the adapter chart's Kubernetes example
 * does). cli/generate.ts reads the task config and writes deploy/overlays/<overlay>/clusterrole.yaml; a kind the
 * task config does not name is never granted, and nothing but reading is (test/deploy checks both).
 */

/** A kind the shadow watches, with its resource plural. */
export interface WatchedKind {
  readonly apiVersion: string;
  readonly kind: string;
  readonly plural: string;
}

export interface PolicyRule {
  readonly apiGroups: readonly string[];
  readonly resources: readonly string[];
  readonly verbs: readonly string[];
}

export const READ_VERBS = ['get', 'list', 'watch'] as const;

/** `batch/v1` → `batch`; `v1` → the core group, `''`. */
export function apiGroupOf(apiVersion: string): string {
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? '' : apiVersion.slice(0, slash);
}

/** One rule per group (groups and resources sorted, so the file only changes when the kinds do). */
export function readOnlyRules(kinds: readonly WatchedKind[]): PolicyRule[] {
  const byGroup = new Map<string, Set<string>>();
  for (const k of kinds) {
    const group = apiGroupOf(k.apiVersion);
    const set = byGroup.get(group) ?? new Set<string>();
    set.add(k.plural);
    byGroup.set(group, set);
  }
  return [...byGroup.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([group, plurals]) => ({ apiGroups: [group], resources: [...plurals].sort(), verbs: [...READ_VERBS] }));
}

/** The ClusterRole and its binding to the sidecar's service account (deploy/base/serviceaccount.yaml). */
export function readOnlyClusterRole(name: string, kinds: readonly WatchedKind[]): object[] {
  return [
    { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name }, rules: readOnlyRules(kinds) },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name },
      subjects: [{ kind: 'ServiceAccount', name: 'reconcile-shadow' }],
    },
  ];
}
