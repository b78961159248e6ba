/**
 * The files the pure core parses, read from disk: models (by built-in name or path) and adapter task configs (with
 * the manifests they reference). The sidecar and the commands read them through here; model/ and analyzer/ only
 * ever see text.
 */
import { existsSync, readFileSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { parseAdapterConfig, type CompiledAdapterConfig } from '../analyzer/recreations/adapter-config.js';
import { applyProposals } from '../analyzer/recreations/proposals.js';
import { parseTaskConfig, type RefReader, type TaskConfig } from '../analyzer/recreations/task-config.js';
import { packageRoot } from '../lib/package-root.js';
import { ValidationError } from '../lib/validation-error.js';
import { BUILTIN_MODELS, parseModel } from '../model/load.js';
import type { ReconcileModel } from '../model/types.js';

const BUILTIN_DIR = join(packageRoot(), 'model', 'builtin');

/** A model by built-in name or by file path; a problem is a ValidationError naming file:line. */
export function resolveModel(nameOrFile: string): ReconcileModel {
  if ((BUILTIN_MODELS as readonly string[]).includes(nameOrFile)) return loadModelFile(join(BUILTIN_DIR, `${nameOrFile}.yaml`));
  if (!existsSync(nameOrFile))
    throw new ValidationError('model', [`${nameOrFile}: no such model file, and not a built-in model (${BUILTIN_MODELS.join(', ')})`]);
  return loadModelFile(nameOrFile);
}

export function loadModelFile(path: string): ReconcileModel {
  return parseModel(readFileSync(path, 'utf8'), path);
}

/**
 * Manifest refs as the adapter resolves them (hyperfleet-adapter internal/configloader/loader.go
 * loadTaskConfigFileReferences, pkg/utils/path.go ResolveSecurePath): a relative ref against the task config's
 * directory, keeping its subdirectories, and never outside it. An absolute ref names a path inside the adapter's
 * container (`/etc/adapter/job.yaml`, the ConfigMap's mount); it is read as given, or else from next to the task
 * config, so a copy of the ConfigMap's files in one folder works as is.
 */
export function refReaderFor(taskConfigFile: string): RefReader {
  const base = resolve(dirname(taskConfigFile));
  return (ref) => {
    const candidates = isAbsolute(ref) ? [ref, join(base, basename(ref))] : [resolve(base, ref)];
    if (!isAbsolute(ref) && relative(base, candidates[0]!).startsWith('..')) return { error: `path ${JSON.stringify(ref)} escapes base directory` };
    for (const path of candidates) if (existsSync(path)) return { text: readFileSync(path, 'utf8') };
    return { error: `referenced file ${JSON.stringify(ref)} does not exist (resolved to ${JSON.stringify(candidates[0])})` };
  };
}

export function loadTaskConfigFile(file: string): TaskConfig {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new ValidationError('adapter task config', [`${file}: cannot read: ${(e as Error).message}`]);
  }
  return parseTaskConfig(text, file, refReaderFor(file));
}

function readOrFail(file: string, kind: 'adapter config' | 'recreation proposals'): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (e) {
    throw new ValidationError(kind, [`${file}: cannot read: ${(e as Error).message}`]);
  }
}

/** The adapter's task config with the proposed rules (`recreations.proposals`, `--proposals`) added. */
export function loadTaskConfigWithProposals(taskConfigFile: string, proposalsFile?: string): TaskConfig {
  const config = loadTaskConfigFile(taskConfigFile);
  return proposalsFile === undefined ? config : applyProposals(config, readOrFail(proposalsFile, 'recreation proposals'), proposalsFile);
}

export function loadAdapterConfigFile(file: string): CompiledAdapterConfig {
  return parseAdapterConfig(readOrFail(file, 'adapter config'), file);
}
