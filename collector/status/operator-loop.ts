/**
 * Which loop the HyperShift operator runs, read from its Deployment: `HYPERSHIFT_RECONCILE_LEGACY=1` in a container's
 * env selects the legacy sequential loop (reference section 4); without it the operator runs the phased loop.
 * The Deployment is watched (get/list/watch on that one Deployment, by field selector), so a rollout that flips the
 * switch is followed.
 */
import type { KubeConfig } from '@kubernetes/client-node';
import type { LoopKind } from '../../model/types.js';
import { ResilientInformer, type BackoffOptions, type RawKubeObject, type Timers } from '../kube/informer.js';

export const LEGACY_ENV = 'HYPERSHIFT_RECONCILE_LEGACY';

export interface DeploymentRef {
  readonly namespace: string;
  readonly name: string;
}

/** The HyperShift install's default: Deployment `operator` in namespace `hypershift`. */
export const DEFAULT_OPERATOR_DEPLOYMENT: DeploymentRef = { namespace: 'hypershift', name: 'operator' };

interface EnvVar {
  readonly name?: string;
  readonly value?: string;
  readonly valueFrom?: unknown;
}

/**
 * The loop a Deployment's pod template selects, or undefined when the env does not say for sure: a value taken
 * from a ConfigMap or Secret (`valueFrom`, not read: the sidecar never reads Secrets), or a value other than
 * `1`, empty, `0` or `false` (the operator is documented to switch on `=1`; other spellings are not guessed).
 */
export function loopFromDeployment(deployment: RawKubeObject): LoopKind | undefined {
  const spec = deployment.spec as { template?: { spec?: { containers?: { env?: EnvVar[] }[] } } } | undefined;
  const vars = (spec?.template?.spec?.containers ?? []).flatMap((c) => c.env ?? []).filter((e) => e.name === LEGACY_ENV);
  if (vars.length === 0) return 'phased';
  const loops = new Set(vars.map((v): LoopKind | undefined => (v.valueFrom !== undefined ? undefined : v.value === '1' ? 'sequential' : ['', '0', 'false'].includes(v.value ?? '') ? 'phased' : undefined)));
  const [only] = loops;
  return loops.size === 1 ? only : undefined;
}

export interface OperatorLoopWatchOptions {
  readonly kubeConfig: KubeConfig;
  readonly deployment: DeploymentRef;
  readonly backoff?: Partial<BackoffOptions>;
  readonly timers?: Timers;
  readonly onError?: (err: Error) => void;
}

/** Follows the operator Deployment; `loop` is undefined until it was read, while it is missing, or when it does not say. */
export class OperatorLoopWatch {
  private current: LoopKind | undefined;
  private readonly informer: ResilientInformer;

  constructor(options: OperatorLoopWatchOptions) {
    const { namespace, name } = options.deployment;
    const set = (d: RawKubeObject): void => {
      this.current = loopFromDeployment(d);
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
        delete: () => (this.current = undefined),
        error: (e) => options.onError?.(e),
      },
    );
  }

  get loop(): LoopKind | undefined {
    return this.current;
  }

  start(): void {
    this.informer.start();
  }

  whenSynced(): Promise<void> {
    return this.informer.whenSynced();
  }

  stop(): Promise<void> {
    return this.informer.stop();
  }
}
