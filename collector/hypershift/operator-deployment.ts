/**
 * Which Deployment runs the HyperShift operator, apart from operator-loop.ts so the config schemas (collector/logs,
 * collector/status component.ts) can name the default without loading the Kubernetes client.
 */
export interface DeploymentRef {
  readonly namespace: string;
  readonly name: string;
}

/** The HyperShift install's default: Deployment `operator` in namespace `hypershift`. */
export const DEFAULT_OPERATOR_DEPLOYMENT: DeploymentRef = { namespace: 'hypershift', name: 'operator' };
