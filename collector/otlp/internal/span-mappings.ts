/**
 * Span shapes other operators already emit for a reconcile, mapped onto the span convention (docs/otlp.md, "Other
 * operators' spans"), so the assembler sees one shape whatever the operator: a mapped root gets the convention's
 * `reconcile.controller`, `reconcile.object`, `reconcile.model` and `reconcile.self_operation` attributes, made from
 * its own name and attributes, and its direct children are its operations as with the convention. The project's own
 * `reconcile` convention is the default and needs no mapping; the others are named in `sources.otlp.spanMappings`.
 *   - `kube-rs`: the `reconciling object` span kube-runtime opens around every reconciler call
 *     (kube-runtime/src/controller/mod.rs, `applier`: `info_span!("reconciling object", "object.ref" = %request.obj_ref,
 *     object.reason = %request.reason)`), whose `object.ref` is ObjectRef's Display (kube-runtime/src/reflector/
 *     object_ref.rs): `Kind.version.group/name[.namespace]`.
 *   - `tekton`: the `<Kind>:ReconcileKind` span Tekton Pipelines opens in ReconcileKind (pkg/reconciler/taskrun/
 *     taskrun.go and pkg/reconciler/pipelinerun/pipelinerun.go), with the attributes `taskrun` or `pipelinerun` (the
 *     name) and `namespace`.
 *   - `span`: any span of a given name, with the object's name and namespace in attributes of the operator's choice.
 * A root whose attributes do not give an object is refused (`invalid_record`) with what is missing, never guessed.
 * Decoders keep only `reconcile.*` attributes and the keys the configured mappings read (`keptKeys`).
 */
import type { LoopKind } from '../../../model/types.js';
import { ATTR } from './assembler.js';
import type { SpanBatch } from './span-batch.js';
import { heldBytesOf, type AttributeValue } from './span.js';

export const MAPPING_SHAPES = ['reconcile', 'kube-rs', 'tekton', 'span'] as const;
export type MappingShape = (typeof MAPPING_SHAPES)[number];

export interface SpanMappingConfig {
  readonly shape: MappingShape;
  /** The controller of the attempts (a model's `controller`); kube-rs and tekton default to the object's kind, lowercased. */
  readonly controller?: string;
  /** The loop the operator runs; its spans do not say. */
  readonly loop?: LoopKind;
  /** An attempt whose root has no children is this one operation, with the root's own outcome. */
  readonly operation?: string;
  /** `span`: the root span's name. */
  readonly span?: string;
  /** `span`: the attribute holding the object's name, and the one holding its namespace (none: cluster-scoped). */
  readonly nameAttribute?: string;
  readonly namespaceAttribute?: string;
  /** kube-rs: the reconciled kind is namespaced, so `object.ref` ends in `.namespace` (false: cluster-scoped). */
  readonly namespaced?: boolean;
}

export const DEFAULT_OPERATION = 'reconcile';
export const KUBE_RS_SPAN = 'reconciling object';
export const KUBE_RS_OBJECT_REF = 'object.ref';
const TEKTON_SUFFIX = ':ReconcileKind';
/** The kinds whose ReconcileKind opens a `<Kind>:ReconcileKind` span, and the attribute naming the object. */
const TEKTON_KINDS: Readonly<Record<string, string>> = { TaskRun: 'taskrun', PipelineRun: 'pipelinerun' };
const TEKTON_NAMESPACE = 'namespace';

/** What a mapped root says, or why it cannot say it. */
type Mapped = { readonly controller: string; readonly object: string } | { readonly problem: string };

interface Mapping {
  readonly name: string;
  readonly loop: LoopKind;
  readonly operation: string;
  /** The keys it reads. */
  readonly keys: readonly string[];
  /** Undefined when the span is not this mapping's root. */
  map(name: string, attributes: ReadonlyMap<string, AttributeValue>): Mapped | undefined;
}

export class SpanMapper {
  private readonly mappings: readonly Mapping[];
  /** Attribute keys the decoders keep besides `reconcile.*`. */
  readonly keptKeys: ReadonlySet<string>;

  constructor(configs: readonly SpanMappingConfig[]) {
    this.mappings = configs.filter((c) => c.shape !== 'reconcile').map(mappingOf);
    this.keptKeys = new Set(this.mappings.flatMap((m) => m.keys));
  }

  /** Whether any mapping besides the convention is configured (else apply() has nothing to do). */
  get active(): boolean {
    return this.mappings.length > 0;
  }

  /** The names of the shapes a root may have, for messages. */
  get names(): string[] {
    return ['reconcile', ...this.mappings.map((m) => m.name)];
  }

  /**
   * Rewrites the batch's roots of a mapped shape into the convention's attributes (spans that carry
   * `reconcile.controller` are the convention's own and stay as they are); the keys read for it are dropped.
   */
  apply(batch: SpanBatch): void {
    for (let i = 0; i < batch.length; i++) {
      const attributes = batch.attributes[i]!;
      if (attributes.has(ATTR.controller)) continue;
      const name = batch.names[i]!;
      for (const m of this.mappings) {
        const mapped = m.map(name, attributes);
        if (!mapped) continue;
        const out = new Map<string, AttributeValue>();
        for (const [k, v] of attributes) if (!this.keptKeys.has(k)) out.set(k, v);
        if ('problem' in mapped) {
          out.set(ATTR.controller, m.name);
          out.set(ATTR.mappingProblem, `${m.name} mapping: ${mapped.problem}`);
        } else {
          out.set(ATTR.controller, mapped.controller);
          out.set(ATTR.object, mapped.object);
        }
        if (!out.has(ATTR.model)) out.set(ATTR.model, m.loop);
        out.set(ATTR.selfOperation, m.operation);
        const bytes = heldBytesOf(batch.parents[i] === 1, name, batch.statusMessages[i]!, out);
        batch.totalBytes += bytes - batch.heldBytes[i]!;
        batch.heldBytes[i] = bytes;
        batch.attributes[i] = out;
        break;
      }
    }
  }
}

function mappingOf(c: SpanMappingConfig): Mapping {
  const loop = c.loop ?? 'sequential';
  const operation = c.operation ?? DEFAULT_OPERATION;
  switch (c.shape) {
    case 'kube-rs':
      return {
        name: 'kube-rs',
        loop,
        operation,
        keys: [KUBE_RS_OBJECT_REF],
        map: (name, attributes) => (name === KUBE_RS_SPAN ? kubeRsObject(attributes.get(KUBE_RS_OBJECT_REF), c.namespaced ?? true, c.controller) : undefined),
      };
    case 'tekton':
      return {
        name: 'tekton',
        loop,
        operation,
        keys: [...Object.values(TEKTON_KINDS), TEKTON_NAMESPACE],
        map: (name, attributes) => {
          if (!name.endsWith(TEKTON_SUFFIX)) return undefined;
          const kind = name.slice(0, -TEKTON_SUFFIX.length);
          const nameKey = TEKTON_KINDS[kind];
          if (nameKey === undefined) return undefined;
          return namedObject(attributes, nameKey, TEKTON_NAMESPACE, c.controller ?? kind.toLowerCase());
        },
      };
    case 'span': {
      const span = c.span!;
      const nameAttribute = c.nameAttribute!;
      return {
        name: `span "${span}"`,
        loop,
        operation,
        keys: [nameAttribute, ...(c.namespaceAttribute === undefined ? [] : [c.namespaceAttribute])],
        map: (name, attributes) => (name === span ? namedObject(attributes, nameAttribute, c.namespaceAttribute, c.controller!) : undefined),
      };
    }
    case 'reconcile':
      throw new Error('the reconcile convention is not a mapping');
  }
}

/**
 * `Kind.version.group/name.namespace` (namespaced kinds) or `Kind.version.group/name` (cluster-scoped): the group may
 * hold dots, a namespace never does, a name may.
 */
export function kubeRsObject(ref: AttributeValue | undefined, namespaced: boolean, controller: string | undefined): Mapped {
  if (typeof ref !== 'string' || ref === '') return { problem: `no ${KUBE_RS_OBJECT_REF} string attribute` };
  const slash = ref.indexOf('/');
  const kindEnd = ref.indexOf('.');
  if (slash < 0 || kindEnd <= 0 || kindEnd > slash) return { problem: `${KUBE_RS_OBJECT_REF} ${JSON.stringify(ref)} is not Kind.version.group/name` };
  const kind = ref.slice(0, kindEnd);
  const rest = ref.slice(slash + 1);
  if (!namespaced)
    return rest === ''
      ? { problem: `${KUBE_RS_OBJECT_REF} ${JSON.stringify(ref)} has no name` }
      : { controller: controller ?? kind.toLowerCase(), object: rest };
  const dot = rest.lastIndexOf('.');
  if (dot <= 0 || dot === rest.length - 1)
    return { problem: `${KUBE_RS_OBJECT_REF} ${JSON.stringify(ref)} has no .namespace after the name (a cluster-scoped kind: set namespaced: false)` };
  return { controller: controller ?? kind.toLowerCase(), object: `${rest.slice(dot + 1)}/${rest.slice(0, dot)}` };
}

function namedObject(attributes: ReadonlyMap<string, AttributeValue>, nameKey: string, namespaceKey: string | undefined, controller: string): Mapped {
  const name = attributes.get(nameKey);
  if (typeof name !== 'string' || name === '') return { problem: `no ${nameKey} string attribute` };
  if (namespaceKey === undefined) return { controller, object: name };
  const namespace = attributes.get(namespaceKey);
  if (typeof namespace !== 'string' || namespace === '') return { problem: `no ${namespaceKey} string attribute` };
  return { controller, object: `${namespace}/${name}` };
}
