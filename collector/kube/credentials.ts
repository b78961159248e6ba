/**
 * The cluster credentials a Kubernetes-backed source uses when its config names none, found where kubectl finds them:
 * the files in KUBECONFIG, else ~/.kube/config, else the pod's service account. client-node's loadFromDefault() falls
 * back to http://localhost:8080 when there is none, and the first request then fails with "HTTP protocol is not
 * allowed when skipTLSVerify is not set or false"; this says what is missing instead, before anything starts.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';

export const NO_CLUSTER_CREDENTIALS = 'no cluster credentials found: set KUBECONFIG or run in a pod';
/** Where the kubelet mounts a pod's service account token (client-node reads the same path). */
const SERVICE_ACCOUNT_TOKEN = '/var/run/secrets/kubernetes.io/serviceaccount/token';

/** The default credentials; throws NO_CLUSTER_CREDENTIALS when none of the three places has any. */
export function kubeConfigFromEnvironment(): KubeConfig {
  const env = process.env;
  const found = (env.KUBECONFIG ?? '') !== '' || (env.HOME !== undefined && existsSync(join(env.HOME, '.kube', 'config'))) || existsSync(SERVICE_ACCOUNT_TOKEN);
  if (!found) throw new Error(NO_CLUSTER_CREDENTIALS);
  const kc = new KubeConfig();
  kc.loadFromDefault();
  return kc;
}
