/**
 * Reads an adapter task config from disk. Manifest refs name paths inside the adapter's container
 * (`/etc/adapter/job.yaml`); they are read as given, or else from next to the task config, so a copy of the
 * adapter's ConfigMap files in one folder works as is.
 */
import { existsSync, readFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { parseTaskConfig, TaskConfigError, type RefReader, type TaskConfig } from './task-config.js';

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
    throw new TaskConfigError([`${file}: cannot read: ${(e as Error).message}`]);
  }
  return parseTaskConfig(text, file, refReaderFor(file));
}
