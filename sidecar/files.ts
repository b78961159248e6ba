/**
 * The files the pure core parses, read from disk: models (by built-in name or path) and adapter task configs (with
 * the manifests they reference). The sidecar and the commands read them through here; model/ and analyzer/ only
 * ever see text.
 */
import { existsSync, readFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { parseTaskConfig, type RefReader, type TaskConfig } from '../analyzer/recreations/task-config.js';
import { packageRoot } from '../lib/package-root.js';
import { ValidationError } from '../lib/validation-error.js';
import { BUILTIN_MODELS, parseModel } from '../model/load.js';
import type { ReconcileModel } from '../model/types.js';

const BUILTIN_DIR = join(packageRoot(), 'model', 'builtin');

/** A model by built-in name or by file path; a problem is a ValidationError naming file:line. */
export function resolveModel(nameOrFile: string): ReconcileModel {
  if ((BUILTIN_MODELS as readonly string[]).includes(nameOrFile)) return loadModelFile(join(BUILTIN_DIR, `${nameOrFile}.yaml`));
  if (!existsSync(nameOrFile)) throw new ValidationError('model', [`${nameOrFile}: no such model file, and not a built-in model (${BUILTIN_MODELS.join(', ')})`]);
  return loadModelFile(nameOrFile);
}

export function loadModelFile(path: string): ReconcileModel {
  return parseModel(readFileSync(path, 'utf8'), path);
}

/**
 * Manifest refs name paths inside the adapter's container (`/etc/adapter/job.yaml`); they are read as given, or else
 * from next to the task config, so a copy of the adapter's ConfigMap files in one folder works as is.
 */
export function refReaderFor(taskConfigFile: string): RefReader {
  return (ref) => {
    for (const path of [ref, join(dirname(taskConfigFile), basename(ref))]) if (existsSync(path)) return readFileSync(path, 'utf8');
    return undefined;
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
