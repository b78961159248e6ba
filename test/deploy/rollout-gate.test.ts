/**
 * The rollout gates under deploy/rollout-gate against the projects' published CRDs (test/fixtures/crds), offline as
 * `kubectl apply --validate=strict` would judge them: the served version's openAPIV3Schema (with ajv), and no field
 * the schema does not declare (a typo such as `sucessCondition` would be pruned by the API server and the gate
 * would silently never pass). The queries' verdict arithmetic is checked against a real Prometheus in
 * test/e2e/fleet.e2e.ts.
 */
import { deepStrictEqual, strictEqual } from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import { parse, parseAllDocuments } from 'yaml';
import { REPO } from '../support/paths.js';

interface Schema {
  readonly type?: string;
  readonly properties?: Record<string, Schema>;
  readonly additionalProperties?: Schema | boolean;
  readonly items?: Schema;
  readonly 'x-kubernetes-preserve-unknown-fields'?: boolean;
}

interface Crd {
  readonly spec: {
    readonly group: string;
    readonly names: { readonly kind: string };
    readonly versions: readonly { readonly name: string; readonly served: boolean; readonly schema: { readonly openAPIV3Schema: Schema } }[];
  };
}

function crd(file: string): Crd {
  const docs = parseAllDocuments(readFileSync(join(REPO, 'test/fixtures/crds', file), 'utf8')).map((d) => d.toJSON() as Crd);
  strictEqual(docs.length, 1);
  return docs[0]!;
}

/** Every path of `value` the schema does not declare, as kubectl's strict field validation reports them. */
function unknownFields(schema: Schema, value: unknown, path = ''): string[] {
  if (schema['x-kubernetes-preserve-unknown-fields'] === true) return [];
  if (Array.isArray(value)) return schema.items ? value.flatMap((v, i) => unknownFields(schema.items!, v, `${path}[${i}]`)) : [];
  if (typeof value !== 'object' || value === null) return [];
  return Object.entries(value).flatMap(([key, v]) => {
    const declared = schema.properties?.[key] ?? (typeof schema.additionalProperties === 'object' ? schema.additionalProperties : undefined);
    if (declared) return unknownFields(declared, v, `${path}.${key}`);
    return schema.additionalProperties === true || schema.type === undefined ? [] : [`${path}.${key}`];
  });
}

/** The problems kubectl would name for `object` under `definition`: schema violations, then unknown fields. */
function validate(definition: Crd, object: { apiVersion: string; kind: string }): string[] {
  const [group, version] = object.apiVersion.split('/');
  strictEqual(group, definition.spec.group);
  strictEqual(object.kind, definition.spec.names.kind);
  const served = definition.spec.versions.find((v) => v.name === version && v.served);
  if (!served) return [`${object.apiVersion} is not a served version`];
  const schema = served.schema.openAPIV3Schema;
  // Kubernetes formats (int64, int-or-string) are not JSON Schema's: the types are checked, the formats left to the server.
  const check = new Ajv({ allErrors: true, strict: false, validateFormats: false, logger: false }).compile(schema);
  const problems = check(object) ? [] : (check.errors ?? []).map((e) => `${e.instancePath} ${e.message ?? ''}`);
  // metadata is an ObjectMeta, which the API server checks itself (the CRD declares it a bare object).
  const { metadata: _metadata, ...rest } = object as Record<string, unknown>;
  return [...problems, ...unknownFields(schema, rest).map((p) => `${p}: unknown field`)];
}

const gate = (file: string): { apiVersion: string; kind: string } =>
  parse(readFileSync(join(REPO, 'deploy/rollout-gate', file), 'utf8')) as { apiVersion: string; kind: string };

describe('deploy/rollout-gate against the published CRDs', () => {
  const argo = crd('argo-rollouts-analysistemplate.yaml');
  const flagger = crd('flagger-metrictemplate.yaml');

  it('the Argo Rollouts AnalysisTemplate validates against argoproj.io AnalysisTemplate', () => {
    deepStrictEqual(validate(argo, gate('analysistemplate.yaml')), []);
  });

  it('the Flagger MetricTemplate validates against flagger.app MetricTemplate', () => {
    deepStrictEqual(validate(flagger, gate('metrictemplate.yaml')), []);
  });

  it('refuses what the API server would prune or reject (the check can fail)', () => {
    const typo = JSON.parse(JSON.stringify(gate('analysistemplate.yaml')).replace('"successCondition"', '"sucessCondition"')) as {
      apiVersion: string;
      kind: string;
    };
    deepStrictEqual(validate(argo, typo), ['.spec.metrics[0].sucessCondition: unknown field']);
    const noQuery = gate('metrictemplate.yaml') as { apiVersion: string; kind: string; spec: Record<string, unknown> };
    delete noQuery.spec.query;
    deepStrictEqual(validate(flagger, noQuery), ["/spec must have required property 'query'"]);
    const provider = JSON.parse(JSON.stringify(gate('metrictemplate.yaml')).replace('"type":"prometheus"', '"type":"prom"')) as {
      apiVersion: string;
      kind: string;
    };
    deepStrictEqual(validate(flagger, provider), ['/spec/provider/type must be equal to one of the allowed values']);
  });
});
