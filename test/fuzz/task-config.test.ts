/**
 * Property: no adapter task config or CEL expression, however broken or hostile, escapes as anything but the
 * documented error (ValidationError naming file:line, CelCompileError), and a compiled rule's evaluation always ends
 * as a value or a bounded error reason.
 */
import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { stringify } from 'yaml';
import { CelCompileError, CelRuntime, EVAL_ERROR_REASONS } from '../../analyzer/recreations/cel.js';
import { parseTaskConfig } from '../../analyzer/recreations/task-config.js';
import { ValidationError } from '../../lib/validation-error.js';
import { REPO } from '../support/paths.js';
import { FUZZ_RUNS } from './runs.js';

const example = readFileSync(join(REPO, 'examples/adapter-task-config.yaml'), 'utf8');
const runtime = new CelRuntime();
const spec = (source: string) => ({ source, owner: 'resource "job" lifecycle.recreate.when.expression', file: 'fuzz.yaml', line: 1, column: 1, block: false });

function expectTaskConfigOutcome(text: string): void {
  try {
    parseTaskConfig(text, 't.yaml');
  } catch (e) {
    assert.ok(e instanceof ValidationError, String(e));
  }
}

function expectCelOutcome(source: string, context: Record<string, unknown>): void {
  let rule;
  try {
    rule = runtime.compile(spec(source));
  } catch (e) {
    assert.ok(e instanceof CelCompileError, String(e));
    return;
  }
  const r = rule.evaluate(context);
  if (!r.ok) assert.ok((EVAL_ERROR_REASONS as readonly string[]).includes(r.reason), r.reason);
}

const celAtom = fc.constantFrom(
  'resources',
  'resources.job',
  'resources.?job',
  '.hasValue()',
  'generation',
  'is_deleting',
  'now()',
  '"x"',
  '1',
  '2.0',
  'true',
  'null',
  '[1, 2]',
  '{"a": 1}',
  'string(generation)',
  'has(resources.job)',
  '.exists(x, x > 1)',
  '.map(x, x * 2)',
  ' && ',
  ' || ',
  ' == ',
  ' != ',
  '!',
  '(',
  ')',
  '[',
  ']',
  '.',
  '?',
  ':',
  ' + ',
);
const yamlValue = fc.anything({
  maxDepth: 4,
  withBigInt: false,
  withDate: false,
  withMap: false,
  withSet: false,
  withTypedArray: false,
  withSparseArray: false,
  withBoxedValues: false,
  withNullPrototype: false,
});

describe('fuzz: adapter task configs and CEL rules', function () {
  // each property runs FUZZ_RUNS generated cases, compiling CEL
  this.timeout(60_000);
  it('arbitrary text as a task config', () => fc.assert(fc.property(fc.string(), expectTaskConfigOutcome), { numRuns: FUZZ_RUNS }));
  it('arbitrary values in the resources of a task config', () =>
    fc.assert(
      fc.property(yamlValue, yamlValue, (resources, params) => expectTaskConfigOutcome(stringify({ params, resources }))),
      { numRuns: FUZZ_RUNS },
    ));
  it('the example task config with a character replaced', () =>
    fc.assert(
      fc.property(fc.nat(example.length - 1), fc.string({ minLength: 1, maxLength: 1 }), (at, ch) =>
        expectTaskConfigOutcome(example.slice(0, at) + ch + example.slice(at + 1)),
      ),
      { numRuns: FUZZ_RUNS },
    ));
  it('CEL expressions built from rule fragments, evaluated against arbitrary resources', () =>
    fc.assert(
      fc.property(fc.array(celAtom, { maxLength: 12 }), yamlValue, fc.integer(), (parts, job, generation) => {
        expectCelOutcome(parts.join(''), { generation: BigInt(generation), is_deleting: false, resources: { job } });
      }),
      { numRuns: FUZZ_RUNS },
    ));
  it('hostile rules are refused at compile time or cut off, never hang', () => {
    const nested = 'resources.items' + '.map(a, [1,2,3,4,5,6,7,8,9,10]'.repeat(6) + ')'.repeat(6) + '.size() > 0';
    const deep = '('.repeat(5000) + '1' + ')'.repeat(5000) + ' == 1';
    for (const source of [nested, deep, 'x'.repeat(1 << 20), '"a".matches("(a+)+$")']) {
      expectCelOutcome(source, { resources: { items: Array.from({ length: 1000 }, (_, i) => BigInt(i)) } });
    }
  });
});
