/**
 * A model as its `reconcile-shadow/v1 ReconcileModel` document again (the inverse of `parseModel`), for outputs that
 * must carry the model they were computed with: a partial summary embeds it, so a merge needs no model argument and
 * can tell partials of different models apart. `parseModel(JSON.stringify(modelDocument(m)))` gives `m` back.
 */
import type { ReconcileModel } from './types.js';

export interface ModelDocument {
  readonly apiVersion: 'reconcile-shadow/v1';
  readonly kind: 'ReconcileModel';
  readonly metadata: { readonly name: string };
  readonly spec: { readonly controller: string; readonly operations: ReconcileModel['operations']; readonly phased: readonly Record<string, unknown>[] };
}

export function modelDocument(model: ReconcileModel): ModelDocument {
  return {
    apiVersion: 'reconcile-shadow/v1',
    kind: 'ReconcileModel',
    metadata: { name: model.name },
    spec: {
      controller: model.controller,
      operations: model.operations,
      // In memory a step says what it is (`kind`); in the document a fail-fast step has `op`, a group `group`.
      phased: model.phased.map(({ kind: _kind, ...step }) => step),
    },
  };
}
