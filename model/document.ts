/**
 * A model as its `reconcile-shadow/v1 ReconcileModel` document again (the inverse of `parseModel`), for outputs that
 * must carry the model they were computed with: a partial summary embeds it, so a merge needs no model argument and
 * can tell partials of different models apart. `parseModel(JSON.stringify(modelDocument(m)))` gives `m` back.
 */
import type { ReconcileModel } from './types.js';

export interface ModelDocument {
  readonly apiVersion: 'reconcile-shadow/v1';
  readonly kind: 'ReconcileModel';
  readonly metadata: { readonly name: string; readonly annotations?: Readonly<Record<string, string>> };
  readonly spec: {
    readonly controller: string;
    readonly operations: ReconcileModel['operations'];
    readonly phased: readonly Record<string, unknown>[];
    readonly builds?: ReconcileModel['builds'];
  };
}

/** The annotation a build's model (modelForBuild) carries its build's name in. */
export const BUILD_ANNOTATION = 'reconcile-shadow/build';
/** The annotation holding how the build was chosen. */
export const BUILD_STATEMENT_ANNOTATION = 'reconcile-shadow/build-statement';

export function modelDocument(model: ReconcileModel): ModelDocument {
  return {
    apiVersion: 'reconcile-shadow/v1',
    kind: 'ReconcileModel',
    metadata: {
      name: model.name,
      ...(model.build !== undefined && {
        annotations: { [BUILD_ANNOTATION]: model.build, ...(model.buildStatement !== undefined && { [BUILD_STATEMENT_ANNOTATION]: model.buildStatement }) },
      }),
    },
    spec: {
      controller: model.controller,
      operations: model.operations,
      // In memory a step says what it is (`kind`); in the document a fail-fast step has `op`, a group `group`.
      phased: model.phased.map(({ kind: _kind, ...step }) => step),
      ...(model.builds && { builds: model.builds }),
    },
  };
}
