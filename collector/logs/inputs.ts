/**
 * The operator logs a user holds, found and opened: files, stdin, and folders searched for the operator's container
 * logs as a must-gather lays them out. `oc adm inspect` (which `oc adm must-gather` runs; openshift/oc
 * pkg/cli/admin/inspect/namespace.go and pod.go, gatherPodData and gatherContainerLogs) writes each container's log
 * of each pod under
 *   namespaces/<namespace>/pods/<pod>/<container>/<container>/logs/current.log   (the running container)
 *   namespaces/<namespace>/pods/<pod>/<container>/<container>/logs/previous.log  (the one before its last restart)
 * (`current.insecure.log`/`previous.insecure.log` when it had to skip TLS verification of the kubelet, and
 * `logs/rotated/` for the kubelet's rotated files with --rotated-pod-logs). A folder's operator logs are the files of
 * that shape of the operator's container; every other file is skipped, and said so.
 * A gzipped input is recognised by its first two bytes (1f 8b), whatever its name, stdin too.
 */
import { createReadStream } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { pipeline, Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';

/** Which container's logs in a folder are the operator's. */
export interface OperatorContainer {
  readonly namespace: string;
  readonly container: string;
}

/** HyperShift's operator: the `operator` container of the Deployment `operator` in `hypershift` (cmd/install/assets/hypershift_operator.go). */
export const HYPERSHIFT_OPERATOR_CONTAINER: OperatorContainer = { namespace: 'hypershift', container: 'operator' };

/** `namespace/container` as the `--container` flag takes it; undefined when it is not of that form. */
export function parseOperatorContainer(text: string): OperatorContainer | undefined {
  const m = /^([^/\s]+)\/([^/\s]+)$/.exec(text);
  return m ? { namespace: m[1]!, container: m[2]! } : undefined;
}

/** Several inputs' name for messages: the one path, or the paths joined. */
export const inputName = (files: readonly string[]): string => (files.length === 1 ? files[0]! : files.join(', '));

/** One container instance's log in a folder. */
export interface ContainerLog {
  readonly path: string;
  readonly namespace: string;
  readonly pod: string;
  readonly container: string;
  readonly instance: 'previous' | 'current';
}

export interface SkippedFile {
  readonly path: string;
  readonly why: string;
}

export interface FolderLogs {
  /** The operator's logs, per pod (by name) the previous container's before the current one's. */
  readonly read: readonly ContainerLog[];
  /** Files shaped like container logs that are not read, each with why. */
  readonly skipped: readonly SkippedFile[];
  /** Files of any other kind (the must-gather's resources, events, …): counted, not listed. */
  readonly otherFiles: number;
}

const LOG_FILE = /^(current|previous)(\.insecure)?\.log(?:\.gz)?$/;

/** Searches `dir` for the operator container's logs (must-gather layout); paths are `dir` joined with the relative path. */
export async function findOperatorLogs(dir: string, operator: OperatorContainer): Promise<FolderLogs> {
  const read: ContainerLog[] = [];
  const skipped: SkippedFile[] = [];
  const insecure: ContainerLog[] = [];
  let otherFiles = 0;
  for (const path of await filesUnder(dir)) {
    const parts = relative(dir, path).split(sep);
    const n = parts.length;
    const name = parts[n - 1]!;
    const rotated = n >= 9 && parts[n - 2] === 'rotated' && parts[n - 3] === 'logs' && parts[n - 9] === 'namespaces' && parts[n - 7] === 'pods';
    if (rotated) {
      skipped.push({
        path,
        why: `a kubelet-rotated file (oc adm inspect --rotated-pod-logs): older lines of ${parts[n - 8]}/${parts[n - 6]}/${parts[n - 5]}; give it with --logs FILE to read it too`,
      });
      continue;
    }
    const m = LOG_FILE.exec(name);
    const shaped = m && n >= 8 && parts[n - 2] === 'logs' && parts[n - 8] === 'namespaces' && parts[n - 6] === 'pods' && parts[n - 4] === parts[n - 3];
    if (!shaped) {
      if (/\.log(?:\.gz)?$/.test(name))
        skipped.push({
          path,
          why: 'not where a must-gather keeps a container log (namespaces/<ns>/pods/<pod>/<container>/<container>/logs/); give it with --logs FILE to read it',
        });
      else otherFiles++;
      continue;
    }
    const log: ContainerLog = { path, namespace: parts[n - 7]!, pod: parts[n - 5]!, container: parts[n - 4]!, instance: m[1] as 'previous' | 'current' };
    if (log.namespace !== operator.namespace || log.container !== operator.container)
      skipped.push({
        path,
        why: `another container: ${log.namespace}/${log.pod}/${log.container} (the operator's is ${operator.namespace}/*/${operator.container})`,
      });
    else if (m[2] === undefined) read.push(log);
    else insecure.push(log);
  }
  // oc creates `current.log` before it fetches, and fetches again into `current.insecure.log` when that failed: the
  // first is then empty or cut, the second the log (openshift/oc pkg/cli/admin/inspect/pod.go gatherContainerLogs)
  for (const retry of insecure) {
    const first = read.findIndex((r) => r.pod === retry.pod && r.instance === retry.instance);
    if (first >= 0)
      skipped.push({
        path: read.splice(first, 1)[0]!.path,
        why: `oc adm inspect fetched this log again as ${retry.path} (the first fetch failed: this one is empty or cut)`,
      });
    read.push(retry);
  }
  const twice = read.filter((a, i) => read.some((b, j) => j < i && b.pod === a.pod && b.instance === a.instance));
  if (twice.length > 0)
    throw new Error(
      `${dir}: ${twice[0]!.namespace}/${twice[0]!.pod} has two ${twice[0]!.instance} logs of ${twice[0]!.container} (${read
        .filter((r) => r.pod === twice[0]!.pod && r.instance === twice[0]!.instance)
        .map((r) => r.path)
        .join(', ')}); give the one to read with --logs FILE`,
    );
  read.sort((a, b) => (a.pod < b.pod ? -1 : a.pod > b.pod ? 1 : a.instance === b.instance ? 0 : a.instance === 'previous' ? -1 : 1));
  return { read, skipped, otherFiles };
}

/** Every regular file under `dir`, in name order (symbolic links are not followed). */
async function filesUnder(dir: string): Promise<string[]> {
  const out: string[] = [];
  const entries = (await readdir(dir, { withFileTypes: true })).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const e of entries) {
    const path = join(dir, e.name);
    if (e.isDirectory()) out.push(...(await filesUnder(path)));
    else if (e.isFile()) out.push(path);
  }
  return out;
}

const GZIP_MAGIC = [0x1f, 0x8b] as const;

/** The bytes of `raw`, gunzipped when they start with gzip's magic bytes (every member of a multi-member file). */
export function decompressed(raw: Readable): Readable {
  return Readable.from(decompress(raw), { objectMode: false });
}

async function* decompress(raw: Readable): AsyncGenerator<Buffer> {
  const chunks = raw[Symbol.asyncIterator]() as AsyncIterator<Buffer | string>;
  const head: Buffer[] = [];
  let bytes = 0;
  while (bytes < GZIP_MAGIC.length) {
    const next = await chunks.next();
    if (next.done) break;
    const chunk = typeof next.value === 'string' ? Buffer.from(next.value) : next.value;
    head.push(chunk);
    bytes += chunk.length;
  }
  const rest = async function* (): AsyncGenerator<Buffer> {
    yield* head;
    for (;;) {
      const next = await chunks.next();
      if (next.done) return;
      yield typeof next.value === 'string' ? Buffer.from(next.value) : next.value;
    }
  };
  const first = head[0]?.length === 1 && head.length > 1 ? Buffer.concat(head.slice(0, 2)) : head[0];
  if (!(first && first.length >= 2 && first[0] === GZIP_MAGIC[0] && first[1] === GZIP_MAGIC[1])) {
    yield* rest();
    return;
  }
  // pipeline passes a failure of either side (an unreadable file, a corrupt stream) to the gunzip read here
  for await (const chunk of pipeline(Readable.from(rest(), { objectMode: false }), createGunzip(), () => undefined)) yield chunk as Buffer;
}

/** A file's bytes (gunzipped when gzipped), read in large chunks. */
export function openLogFile(path: string): Readable {
  return decompressed(createReadStream(path, { highWaterMark: 1 << 20 }));
}
