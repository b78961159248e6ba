import { strict as assert } from 'node:assert';
import { Environment } from '@marcbachmann/cel-js';
import { CelCompileError, CelRuntime, DEFAULT_CEL_LIMITS, estimateCost, toCelValue } from '../../../analyzer/recreations/cel.js';
import type { ExpressionSpec } from '../../../analyzer/recreations/task-config.js';

function spec(source: string, at: Partial<ExpressionSpec> = {}): ExpressionSpec {
  return { source, owner: 'resource "job" lifecycle.recreate.when.expression', file: 'task.yaml', line: 10, column: 13, block: true, ...at };
}

function compileError(runtime: CelRuntime, s: ExpressionSpec): string {
  try {
    runtime.compile(s);
  } catch (e) {
    if (e instanceof CelCompileError) return e.message;
    throw e;
  }
  assert.fail('expected a compile error');
}

const DESIGNED_RULE = `resources.?job.hasValue()
&& has(resources.job.metadata)
&& has(resources.job.metadata.annotations)
&& string(generation) != resources.job.metadata.annotations["hyperfleet.io/generation"]`;

describe('CEL for adapter rules', () => {
  const runtime = new CelRuntime();
  const job = (gen: string) =>
    toCelValue({ metadata: { name: 'validate-c1', annotations: { 'hyperfleet.io/generation': gen } }, status: { succeeded: 1 } }, 1000);

  it('evaluates the designed recreate rule with optional types; generation is an int, never a double', () => {
    const rule = runtime.compile(spec(DESIGNED_RULE));
    assert.deepEqual(rule.evaluate({ generation: 2n, resources: { job: job('1') } }), { ok: true, value: true });
    assert.deepEqual(rule.evaluate({ generation: 2n, resources: { job: job('2') } }), { ok: true, value: false });
    // Absent resources are absent: the rule is false, not an error.
    assert.deepEqual(rule.evaluate({ generation: 2n, resources: {} }), { ok: true, value: false });
    const shortForm = runtime.compile(
      spec('resources.?job.hasValue() && string(generation) != resources.job.metadata.annotations["hyperfleet.io/generation"]'),
    );
    assert.deepEqual(shortForm.evaluate({ generation: 3n, resources: { job: job('3') } }), { ok: true, value: false });
  });

  it('the adapter examples: is_deleting from checkClusterState, delete ordering, and now()', () => {
    const isDeleting = runtime.compile(spec('checkClusterState.?deleted_time.hasValue()'));
    // JSON null is absent, as Go's omitempty leaves it out of the API's answer.
    assert.deepEqual(isDeleting.evaluate({ checkClusterState: toCelValue({ id: 'c1', deleted_time: null }, 10) }), { ok: true, value: false });
    assert.deepEqual(isDeleting.evaluate({ checkClusterState: toCelValue({ id: 'c1', deleted_time: '2026-11-02T00:00:00Z' }, 10) }), { ok: true, value: true });
    const ordered = runtime.compile(spec('is_deleting && !resources.?configMapManifestWork.hasValue()'));
    assert.deepEqual(ordered.evaluate({ is_deleting: true, resources: {} }), { ok: true, value: true });
    assert.deepEqual(ordered.evaluate({ is_deleting: true, resources: { configMapManifestWork: {} } }), { ok: true, value: false });
    const pending = runtime.compile(spec('resources.?job.?metadata.?deletionTimestamp.hasValue()'));
    assert.deepEqual(pending.evaluate({ resources: { job: { metadata: { deletionTimestamp: '2026-11-02T00:00:00Z' } } } }), { ok: true, value: true });
    const aged = runtime.compile(spec('(timestamp(now()) - timestamp(checkClusterState.updated_time)).getSeconds() >= 300'));
    runtime.nowMs = Date.parse('2026-11-02T00:05:00Z');
    assert.deepEqual(aged.evaluate({ checkClusterState: { updated_time: '2026-11-02T00:00:00Z' } }), { ok: true, value: true });
    runtime.nowMs = Date.parse('2026-11-02T00:04:59Z');
    assert.deepEqual(aged.evaluate({ checkClusterState: { updated_time: '2026-11-02T00:00:00Z' } }), { ok: true, value: false });
    const count = runtime.compile(spec('resources.job.status.succeeded + 1 == 2'));
    assert.deepEqual(count.evaluate({ resources: { job: job('1') } }), { ok: true, value: true });
  });

  it('a failing evaluation is an error with a bounded reason, never false', () => {
    const cases: [string, Record<string, unknown>, string][] = [
      ['resources.job.metadata.annotations["missing"] == "1"', { resources: { job: job('1') } }, 'no_such_key'],
      ['generation + "1" == "21"', { generation: 2n }, 'no_such_overload'],
      ['nothing == 1', {}, 'unknown_variable'],
      ['1 / zero == 1', { zero: 0n }, 'division_by_zero'],
      ['int(x) == 1', { x: 'abc' }, 'conversion'],
    ];
    for (const [source, context, reason] of cases) {
      const r = runtime.compile(spec(source)).evaluate(context);
      assert.equal(r.ok, false, source);
      assert.equal(!r.ok && r.reason, reason, source);
    }
    const unknownFn = runtime.compile(spec('noSuchFunction(resources.job) == "True"'));
    const r = unknownFn.evaluate({ resources: { job: job('1') } });
    assert.equal(!r.ok && r.reason, 'no_such_overload');
  });

  it('compile errors name file:line:column of the caret, the owner, the message and show the caret', () => {
    const message = compileError(runtime, spec('resources.?job.hasValue()\n&& string(generation) != resources.job.metadata.('));
    const [head, ...excerpt] = message.split('\n');
    assert.equal(head, 'task.yaml:11:61 resource "job" lifecycle.recreate.when.expression: Expected IDENTIFIER, got LPAREN');
    assert.ok(excerpt.some((l) => l.includes('&& string(generation) != resources.job.metadata.(')));
    assert.ok(excerpt.some((l) => /^\s+\^$/.test(l)));
    // A one-line (flow) scalar: the column counts from where the expression starts on its line.
    assert.equal(
      compileError(runtime, spec('is_deleting &&', { line: 4, column: 30, block: false })).split('\n')[0],
      'task.yaml:4:44 resource "job" lifecycle.recreate.when.expression: Unexpected token: EOF',
    );
  });

  it('refuses at start what could run away: too deep, too large, nested macros over input, unsafe regexes', () => {
    assert.match(compileError(runtime, spec('('.repeat(40) + '1' + ')'.repeat(40))), /Exceeded maxDepth \(32\)/);
    assert.match(compileError(runtime, spec(Array.from({ length: 1200 }, (_, i) => `x == ${i}`).join(' || '))), /Exceeded maxAstNodes \(2000\)/);
    assert.match(
      compileError(runtime, spec('a.exists(x, b.exists(y, c.exists(z, x == y && y == z)))')),
      /refused: up to \d+ steps per evaluation \(limit 2000000\); nested macros/,
    );
    // Two levels over input lists stay within the budget; literal lists count by their length.
    runtime.compile(spec('a.exists(x, x.conditions.exists(c, c.type == "Ready"))'));
    runtime.compile(spec('[1, 2, 3].exists(x, a.exists(y, y == x))'));
    assert.match(compileError(runtime, spec('name.matches(pattern)')), /refused: matches\(\) needs a literal pattern/);
    assert.match(compileError(runtime, spec('name.matches("(a+)+$")')), /refused: pattern "\(a\+\)\+\$" nests quantifiers/);
    runtime.compile(spec('name.matches("^validate-[a-z0-9]+$")'));
  });

  it('estimates the worst case of macros from the input list cap', () => {
    const ast = (s: string) => new Environment({ enableOptionalTypes: true, unlistedVariablesAreDyn: true }).parse(s).ast;
    // a.exists(x, x == 1): the call, its target, and 256 times the body (x, 1, ==).
    assert.equal(estimateCost(ast('a.exists(x, x == 1)'), 256), 1 + 1 + 256 * 3);
    assert.equal(estimateCost(ast('[1, 2].exists(x, x == 1)'), 256), 1 + 3 + 2 * 3);
    assert.equal(estimateCost(ast('a.exists(x, x.b.exists(y, y))'), 10), 1 + 1 + 10 * (1 + 2 + 10 * 1));
  });

  it('caps input lists: a longer list fails the evaluation as input_too_large', () => {
    assert.throws(
      () => toCelValue({ items: new Array(257).fill(1) }, DEFAULT_CEL_LIMITS.maxInputListElements),
      /a list of 257 items exceeds the input cap of 256/,
    );
    assert.deepEqual(toCelValue({ a: 1, b: 1.5, c: null, d: [1, null], e: 'x' }, 1000), { a: 1n, b: 1.5, d: [1n, null], e: 'x' });
  });

  it('an evaluation over its time budget is discarded as budget_exceeded', () => {
    const slow = new CelRuntime({ ...DEFAULT_CEL_LIMITS, maxCost: Number.MAX_SAFE_INTEGER, evalBudgetMs: 0 });
    const rule = slow.compile(spec('items.all(i, i.exists(j, j > 0))'));
    const items = Array.from({ length: 200 }, () => Array.from({ length: 200 }, () => 1n));
    const r = rule.evaluate({ items });
    assert.equal(!r.ok && r.reason, 'budget_exceeded');
  });
});
