/**
 * A GET against the Kubernetes API that returns the body as raw JSON, authenticated and TLS-configured by the
 * client-node KubeConfig. Lists are read raw rather than through the typed API clients so that listed objects have
 * exactly the shape watch events have (typed clients turn timestamps into Dates and drop unknown fields), which the
 * informer's compare-on-relist depends on.
 */
import http from 'node:http';
import https from 'node:https';
import type { KubeConfig } from '@kubernetes/client-node';

/** Bodies larger than this are refused rather than buffered (a list of a few thousand objects fits easily). */
export const DEFAULT_MAX_BODY_BYTES = 64 * 1024 * 1024;

/** A non-2xx answer; `statusCode` is what client-node's informer checks for 410. */
export class KubeApiError extends Error {
  constructor(
    readonly statusCode: number,
    readonly path: string,
    message: string,
  ) {
    super(`GET ${path}: HTTP ${statusCode}: ${message}`);
    this.name = 'KubeApiError';
  }
}

export async function kubeGetJson(kc: KubeConfig, pathAndQuery: string, maxBodyBytes = DEFAULT_MAX_BODY_BYTES): Promise<unknown> {
  const cluster = kc.getCurrentCluster();
  if (!cluster) throw new Error('kubeconfig: no current cluster');
  const url = new URL(cluster.server + pathAndQuery);
  const options: https.RequestOptions = { method: 'GET', headers: { Accept: 'application/json' } };
  await kc.applyToHTTPSOptions(options);
  const transport = url.protocol === 'http:' ? http : https;
  const body = await new Promise<{ status: number; text: string }>((resolve, reject) => {
    const req = transport.request(url, options, (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      let overflow = false;
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > maxBodyBytes && !overflow) {
          overflow = true;
          reject(new Error(`GET ${pathAndQuery}: response body exceeds ${maxBodyBytes} bytes`));
          req.destroy();
        }
        if (!overflow) chunks.push(chunk);
      });
      res.on('end', () => {
        if (!overflow) resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
  if (body.status < 200 || body.status > 299) throw new KubeApiError(body.status, pathAndQuery, statusMessage(body.text));
  try {
    return JSON.parse(body.text) as unknown;
  } catch (e) {
    throw new Error(`GET ${pathAndQuery}: body is not JSON: ${(e as Error).message}`, { cause: e });
  }
}

/** The `message` of a Kubernetes Status body, or the start of whatever came back. */
function statusMessage(text: string): string {
  try {
    const parsed = JSON.parse(text) as { message?: unknown };
    if (typeof parsed.message === 'string') return parsed.message;
  } catch {
    // not a Status: fall through to the raw text
  }
  return text.slice(0, 200);
}
