/**
 * Which loop the HyperShift operator runs, read from its Deployment (shared by the log and the status source).
 *
 * Upstream (hypershift-operator/main.go at the merge 51c7ac6da5ae and at HEAD): the operator runs reconcileLegacy()
 * exactly when its environment has `HYPERSHIFT_RECONCILE_LEGACY=1` (`os.Getenv(...) == "1"`), else the phased loop.
 * A build from before the merge has no such switch and runs the sequential loop whatever its environment. So the
 * variable alone does not say: the build's version must be known too. What can tell the version:
 * - the Deployment's annotation `hypershift.openshift.io/install-cli-version`, which `hypershift install` writes
 *   (cmd/install/assets/hypershift_operator.go, unless rendering a template): `supportedversion.String()`;
 * - the operator's own start line `Starting hypershift-operator-manager` with `version` = the same string.
 * That string is `openshift/hypershift: <git revision>. Latest supported OCP: <x.y.z>`. The revision cannot be placed
 * against the merge without the repository, but the latest supported OCP version can: it was 5.0.0 at the merge
 * (support/supportedversion/version.go; 5.0.0 from 2026-04-09, 5.1.0 from 2026-08-12). Below 5.0.0 the build predates
 * the merge; above, it contains it; 5.0.0 itself is either, and does not say.
 * The image tag is the build's version when it is one (`…/hypershift-operator:4.22.3`, `:v5.0`); `latest`, the
 * default, and a digest (OpenShift payloads) are none. `version` is the tag when it is a version, else the
 * annotation: model/builds.ts picks the model's build from it (selectBuild).
 * The Deployment is watched (get/list/watch on that one Deployment, by field selector), so a rollout is followed.
 */
import type { KubeConfig } from '@kubernetes/client-node';
import type { LoopKind } from '../../model/types.js';
import type { BackoffOptions } from '../kube/backoff.js';
import { ResilientInformer, type RawKubeObject, type Timers } from '../kube/informer.js';
import type { DeploymentRef } from './operator-deployment.js';

/** What the HyperShift operator's build and Deployment say about its loop, and which errors are no operation's. */
export const HYPERSHIFT_OPERATOR = {
  legacyEnv: 'HYPERSHIFT_RECONCILE_LEGACY',
  legacyValue: '1',
  versionAnnotation: 'hypershift.openshift.io/install-cli-version',
  versionLogMessage: 'Starting hypershift-operator-manager',
  versionLogField: 'version',
  /** supportedversion.LatestSupportedVersion at the merge commit. */
  latestSupportedAtMerge: [5, 0, 0] as const,
  /**
   * The Reconcile() wrapper's own errors: its Get of the HostedCluster, and the status update of the
   * ReconciliationSucceeded condition (a conflict, or the object gone), appended to the loop's error.
   */
  nonOperationErrors: [
    'failed to get cluster %q: %w',
    'Operation cannot be fulfilled on hostedclusters.hypershift.openshift.io %q: %s',
    'hostedclusters.hypershift.openshift.io %q not found',
  ] as readonly string[],
} as const;

export type BuildEra = 'before-merge' | 'with-merge';

/** Whether a version string (`… Latest supported OCP: x.y.z`) is of a build before the merge or with it; undefined when it does not say. */
export function buildEra(version: string): BuildEra | undefined {
  const m = /Latest supported OCP: (\d+)\.(\d+)\.(\d+)/.exec(version);
  if (!m) return undefined;
  const [major, minor, patch] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const [mj, mn, pt] = HYPERSHIFT_OPERATOR.latestSupportedAtMerge;
  const order = major - mj || minor - mn || patch - pt;
  return order < 0 ? 'before-merge' : order > 0 ? 'with-merge' : undefined;
}

/** What a source knows about the operator's loop: the loop, or undefined, and a sentence saying why. */
export interface OperatorLoop {
  readonly loop: LoopKind | undefined;
  readonly statement: string;
  /** The operator's build version as the Deployment shows it (an image tag that is a version, or the annotation). */
  readonly version?: string;
}

/** The image tag of each container when it is a version (`4.22.3`, `v5.0.1-multi`), in order. */
export function imageVersions(deployment: RawKubeObject): string[] {
  const spec = deployment.spec as { template?: { spec?: { containers?: { image?: string }[] } } } | undefined;
  return (spec?.template?.spec?.containers ?? []).flatMap((c) => {
    const image = c.image ?? '';
    if (image.includes('@')) return [];
    const tag = /:([\w.+-]+)$/.exec(image.slice(image.lastIndexOf('/') + 1))?.[1];
    return tag !== undefined && /^v?\d+\.\d+(?:[.+-]|$)/.test(tag) ? [tag] : [];
  });
}

/** The loop a build of this version runs with this value of the switch (undefined: the variable is absent). */
export function loopOfBuild(era: BuildEra | undefined, legacy: string | undefined, from: string): OperatorLoop {
  const env = HYPERSHIFT_OPERATOR.legacyEnv;
  if (legacy === HYPERSHIFT_OPERATOR.legacyValue) return { loop: 'sequential', statement: `${from}: ${env}=1 (the legacy sequential loop)` };
  if (era === 'before-merge') return { loop: 'sequential', statement: `${from}: the build predates the merge of PR #7908 and has only the sequential loop` };
  if (era === 'with-merge') return { loop: 'phased', statement: `${from}: the build contains the merge of PR #7908 and ${env} is not 1 (the phased loop)` };
  return {
    loop: undefined,
    statement: `${from}: ${env} is ${legacy === undefined ? 'not set' : `"${legacy}"`}, and the build's version is not known (a build from before the merge runs the sequential loop without the variable)`,
  };
}

interface EnvVar {
  readonly name?: string;
  readonly value?: string;
  readonly valueFrom?: unknown;
}

/** The loop a Deployment's pod template runs, from the switch and the version annotation. */
export function loopFromDeployment(deployment: RawKubeObject): OperatorLoop {
  const from = `Deployment ${deployment.metadata?.namespace ?? ''}/${deployment.metadata?.name ?? ''}`;
  const spec = deployment.spec as { template?: { spec?: { containers?: { env?: EnvVar[] }[] } } } | undefined;
  const vars = (spec?.template?.spec?.containers ?? []).flatMap((c) => c.env ?? []).filter((e) => e.name === HYPERSHIFT_OPERATOR.legacyEnv);
  if (vars.some((v) => v.valueFrom !== undefined))
    return { loop: undefined, statement: `${from}: ${HYPERSHIFT_OPERATOR.legacyEnv} is set from a ConfigMap or Secret, which is not read` };
  const values = new Set(vars.map((v) => v.value ?? ''));
  if (values.size > 1) return { loop: undefined, statement: `${from}: containers disagree on ${HYPERSHIFT_OPERATOR.legacyEnv}` };
  const version = deployment.metadata?.annotations?.[HYPERSHIFT_OPERATOR.versionAnnotation];
  const build = imageVersions(deployment)[0] ?? version;
  return { ...loopOfBuild(version === undefined ? undefined : buildEra(version), [...values][0], from), ...(build !== undefined && { version: build }) };
}

export interface OperatorLoopWatchOptions {
  readonly kubeConfig: KubeConfig;
  readonly deployment: DeploymentRef;
  readonly backoff?: Partial<BackoffOptions>;
  readonly timers?: Timers;
  readonly onError?: (err: Error) => void;
}

/** Follows the operator Deployment; `current.loop` is undefined until it was read, while it is missing, or when it does not say. */
export class OperatorLoopWatch {
  private state: OperatorLoop;
  private readonly informer: ResilientInformer;

  constructor(options: OperatorLoopWatchOptions) {
    const { namespace, name } = options.deployment;
    this.state = { loop: undefined, statement: `Deployment ${namespace}/${name}: not read yet` };
    const set = (d: RawKubeObject): void => {
      this.state = loopFromDeployment(d);
    };
    this.informer = new ResilientInformer(
      {
        kubeConfig: options.kubeConfig,
        path: `/apis/apps/v1/namespaces/${encodeURIComponent(namespace)}/deployments`,
        fieldSelector: `metadata.name=${name}`,
        backoff: options.backoff,
        timers: options.timers,
      },
      {
        add: set,
        update: set,
        delete: () => (this.state = { loop: undefined, statement: `Deployment ${namespace}/${name}: deleted` }),
        error: (e) => options.onError?.(e),
      },
    );
  }

  get current(): OperatorLoop {
    return this.state;
  }

  get loop(): LoopKind | undefined {
    return this.state.loop;
  }

  start(): void {
    this.informer.start();
  }

  /** Starts, and waits for the first read of the Deployment no longer than `timeoutMs`. */
  async startWithin(timeoutMs: number, timers: Pick<Timers, 'setTimeout' | 'clearTimeout'>): Promise<void> {
    this.start();
    let timer: unknown;
    const timeout = new Promise<void>((resolve) => (timer = timers.setTimeout(resolve, timeoutMs)));
    await Promise.race([this.whenSynced(), timeout]);
    timers.clearTimeout(timer);
  }

  whenSynced(): Promise<void> {
    return this.informer.whenSynced();
  }

  stop(): Promise<void> {
    return this.informer.stop();
  }
}
