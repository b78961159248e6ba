/**
 * reconcile-shadow's own proposals file: rules the adapter does not implement yet, tried beside an unchanged adapter
 * config. Today that is `lifecycle.recreate.when` per resource (the recreation design, HYPERFLEET-837; the adapter's
 * configloader/types.go ResourceLifecycle has only `create` and `delete`, and its strict decoding refuses the key):
 *
 *   apiVersion: reconcile-shadow/v1
 *   kind: RecreationProposals
 *   resources:
 *     - name: validationJob                 # a resource of the task config, by name
 *       lifecycle:
 *         recreate:
 *           when:
 *             expression: string(generation) != resources.?validationJob.metadata.annotations["hyperfleet.io/generation"].orValue("")
 *
 * Pure: the caller reads the file.
 */
import { ValidationError } from '../../lib/validation-error.js';
import { YamlSource, type FieldPath } from '../../lib/yaml-source.js';
import { isRecord } from '../../lib/is-record.js';
import { celExpression, type TaskConfig, type TaskConfigDoc } from './task-config.js';

function only(r: TaskConfigDoc, path: FieldPath, value: Record<string, unknown>, keys: readonly string[]): void {
  for (const k of Object.keys(value)) if (!keys.includes(k)) r.src.fail([...path, k], `unknown key (expected ${keys.join(', ')})`);
}

/** The task config with the proposed rules of `text` added to its resources. */
export function applyProposals(config: TaskConfig, text: string, file: string): TaskConfig {
  const src = new YamlSource(text, file);
  if (src.problems.length > 0) throw new ValidationError('recreation proposals', src.problems);
  const r: TaskConfigDoc = { src, lines: text.split('\n') };
  const raw = src.value;
  if (!isRecord(raw)) throw new ValidationError('recreation proposals', [`${file}:1 (document): a proposals file is a YAML mapping`]);
  only(r, [], raw, ['apiVersion', 'kind', 'resources']);
  if (raw.apiVersion !== 'reconcile-shadow/v1') src.fail(['apiVersion'], `must be reconcile-shadow/v1, got ${JSON.stringify(raw.apiVersion)}`);
  if (raw.kind !== 'RecreationProposals') src.fail(['kind'], `must be RecreationProposals, got ${JSON.stringify(raw.kind)}`);
  const byName = new Map(config.resources.map((res) => [res.name, res]));
  const proposed = new Map<string, ReturnType<typeof celExpression>>();
  const items = Array.isArray(raw.resources) ? raw.resources : [];
  if (!Array.isArray(raw.resources)) src.fail(['resources'], 'must be a list of resources by name');
  items.forEach((item, i) => {
    const at: FieldPath = ['resources', i];
    if (!isRecord(item)) return src.fail(at, 'must be a mapping with name and lifecycle');
    only(r, at, item, ['name', 'lifecycle']);
    const name = item.name;
    if (typeof name !== 'string' || !byName.has(name)) {
      return src.fail([...at, 'name'], `no resource ${JSON.stringify(name)} in ${config.file} (it has ${[...byName.keys()].join(', ') || 'none'})`);
    }
    if (proposed.has(name)) return src.fail([...at, 'name'], `resource "${name}" is proposed twice`);
    const lc = item.lifecycle;
    if (!isRecord(lc) || !isRecord(lc.recreate) || !isRecord(lc.recreate.when))
      return src.fail([...at, 'lifecycle'], 'needs lifecycle.recreate.when.expression');
    only(r, [...at, 'lifecycle'], lc, ['recreate']);
    only(r, [...at, 'lifecycle', 'recreate'], lc.recreate, ['when']);
    only(r, [...at, 'lifecycle', 'recreate', 'when'], lc.recreate.when, ['expression']);
    proposed.set(
      name,
      celExpression(
        r,
        [...at, 'lifecycle', 'recreate', 'when', 'expression'],
        lc.recreate.when.expression,
        `proposal "${name}" lifecycle.recreate.when.expression`,
      ),
    );
  });
  if (src.problems.length > 0) throw new ValidationError('recreation proposals', src.problems);
  return {
    ...config,
    resources: config.resources.map((res) => {
      const when = proposed.get(res.name);
      return when ? { ...res, recreateWhen: when } : res;
    }),
  };
}
