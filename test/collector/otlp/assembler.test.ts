import { deepStrictEqual, strictEqual } from 'node:assert';
import { SpanAssembler, DEFAULT_SPAN_ASSEMBLER_OPTIONS, type SpanAssemblerOptions } from '../../../collector/otlp/internal/assembler.js';
import { heldBytes, type AttributeValue, type OtlpSpan } from '../../../collector/otlp/internal/span.js';
import { CollectingSink, ManualScheduler } from './helpers.js';

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const ROOT = '00f067aa0ba902b7';
const T0 = 1793491205339362000n; // 2026-11-01T00:00:05.339362Z
const MS = 1_000_000n;
const WHERE = 'POST /v1/traces #1 from 127.0.0.1:5000';
const OPTIONS: SpanAssemblerOptions = { ...DEFAULT_SPAN_ASSEMBLER_OPTIONS, settleMs: 2_000, maxWaitMs: 30_000 };

function span(
  spanId: string,
  name: string,
  parentSpanId: string,
  startNs: bigint,
  endNs: bigint,
  attrs: Record<string, AttributeValue> = {},
  status: [number, string] = [0, ''],
): OtlpSpan {
  return {
    traceId: TRACE,
    spanId,
    parentSpanId,
    name,
    startNs,
    endNs,
    statusCode: status[0],
    statusMessage: status[1],
    attributes: new Map(Object.entries(attrs)),
  };
}

function root(attrs: Record<string, AttributeValue> = {}, spanId = ROOT): OtlpSpan {
  const base = { 'reconcile.controller': 'hostedcluster', 'reconcile.object': 'clusters/hc-1', 'reconcile.generation': 4n, 'reconcile.model': 'phased' };
  return span(spanId, 'reconcile', '', T0, T0 + 900n * MS, { ...base, ...attrs });
}

/** Child n (1-based) starts at T0 + 100n ms and lasts n * 50 ms. */
function child(n: number, name: string, attrs: Record<string, AttributeValue> = {}, status: [number, string] = [0, ''], parent = ROOT): OtlpSpan {
  const start = T0 + BigInt(n) * 100n * MS;
  return span(`c0000000000000${String(n).padStart(2, '0')}`, name, parent, start, start + BigInt(n) * 50n * MS, attrs, status);
}

function setup(options: Partial<SpanAssemblerOptions> = {}): {
  sink: CollectingSink;
  clock: ManualScheduler;
  asm: SpanAssembler;
  add: (...s: OtlpSpan[]) => void;
} {
  const sink = new CollectingSink();
  const clock = new ManualScheduler();
  const asm = new SpanAssembler({ ...OPTIONS, ...options }, sink, clock);
  let added = 0;
  const add = (...spans: OtlpSpan[]): void => {
    for (const s of spans) asm.add(s, WHERE);
    added += spans.length;
  };
  afterEachCheck = () => strictEqual(sink.accountedFor + asm.pendingSpans, added, 'every span added is pending, or in exactly one attempt or one rejection');
  return { sink, clock, asm, add };
}

let afterEachCheck: (() => void) | undefined;

describe('otlp/assembler: spans -> attempts by the span convention', () => {
  afterEach(() => {
    afterEachCheck?.();
    afterEachCheck = undefined;
  });

  it('hands on an attempt as soon as the counted children have arrived, in any order, operations in start order', () => {
    const { sink, clock, add } = setup();
    add(child(2, 'B', {}, [2, 'failed in B: boom']), child(1, 'A'));
    strictEqual(sink.attempts.length, 0);
    add(root({ 'reconcile.operation_count': 3n }));
    strictEqual(sink.attempts.length, 0);
    add(child(3, 'C', { 'reconcile.outcome': 'stop' }));
    deepStrictEqual(sink.attempts, [
      {
        time: '2026-11-01T00:00:05.339362Z',
        timeMs: Date.parse('2026-11-01T00:00:05.339Z'),
        controller: 'hostedcluster',
        object: 'clusters/hc-1',
        generation: 4,
        loop: 'phased',
        operations: [
          { name: 'A', outcome: 'ok', durationSeconds: 0.05 },
          { name: 'B', outcome: 'error', error: 'failed in B: boom', durationSeconds: 0.1 },
          { name: 'C', outcome: 'stop', durationSeconds: 0.15 },
        ],
        origin: { source: 'otlp', traceId: TRACE, spanId: ROOT, incomplete: false },
      },
    ]);
    strictEqual(clock.activeTimers, 0);
  });

  it('without a count, hands on the attempt once the settle time passes with no new child', () => {
    const { sink, clock, asm, add } = setup();
    add(root(), child(1, 'A'));
    clock.advance(1_999);
    add(child(2, 'B'));
    clock.advance(1_999);
    strictEqual(sink.attempts.length, 0);
    clock.advance(1);
    deepStrictEqual(
      sink.attempts.map((a) => [a.operations.map((o) => o.name), a.origin.incomplete]),
      [[['A', 'B'], false]],
    );
    strictEqual(asm.pendingAttempts, 0);
  });

  it('analyzes what arrived after the max wait and marks it incomplete when the count is not reached', () => {
    const { sink, clock, add } = setup();
    add(root({ 'reconcile.operation_count': 3n }), child(1, 'A'));
    clock.advance(29_999);
    add(child(2, 'B'));
    strictEqual(sink.attempts.length, 0);
    clock.advance(1);
    deepStrictEqual(
      sink.attempts.map((a) => [a.operations.map((o) => o.name), a.origin.incomplete]),
      [[['A', 'B'], true]],
    );
  });

  it('drops children whose root never arrives as orphan_span after the max wait, naming the request', () => {
    const { sink, clock, add } = setup();
    add(child(1, 'A'), child(2, 'B'));
    clock.advance(30_000);
    deepStrictEqual(sink.rejections, [
      {
        source: 'otlp',
        reason: 'orphan_span',
        where: WHERE,
        message: `span c000000000000001 ("A") in trace ${TRACE}: its root span (${ROOT}) did not arrive within 30000 ms`,
      },
      {
        source: 'otlp',
        reason: 'orphan_span',
        where: WHERE,
        message: `span c000000000000002 ("B") in trace ${TRACE}: its root span (${ROOT}) did not arrive within 30000 ms`,
      },
    ]);
  });

  it('counts duplicates while pending and after hand-on, and a new child of an analyzed attempt as late', () => {
    const { sink, add } = setup();
    add(root({ 'reconcile.operation_count': 2n }), child(1, 'A'), child(1, 'A'), root({ 'reconcile.operation_count': 2n }), child(2, 'B'));
    strictEqual(sink.attempts.length, 1);
    add(root(), child(1, 'A'), child(3, 'C'));
    deepStrictEqual(
      sink.rejections.map((r) => [r.reason, r.message.replace(/ in trace \w+/, '')]),
      [
        ['duplicate_span', 'span c000000000000001 ("A"): the same child span arrived twice'],
        ['duplicate_span', `span ${ROOT} ("reconcile"): the same root span arrived twice`],
        ['duplicate_span', `span ${ROOT} ("reconcile"): already handed on in an analyzed attempt`],
        ['duplicate_span', 'span c000000000000001 ("A"): already handed on in an analyzed attempt'],
        ['orphan_span', `span c000000000000003 ("C"): arrived after its attempt (root ${ROOT}) was analyzed`],
      ],
    );
  });

  it('drops a span that is neither a root nor a child at once', () => {
    const { sink, add } = setup();
    add(span('1111111111111111', 'GET /healthz', '', T0, T0));
    deepStrictEqual(sink.reasons(), ['orphan_span']);
    strictEqual(
      sink.rejections[0]!.message,
      `span 1111111111111111 ("GET /healthz") in trace ${TRACE}: neither an attempt root (no reconcile.controller attribute) nor the child of one`,
    );
  });

  it('echoes reconcile.time when it spells the root start instant, and formats the start otherwise', () => {
    const { sink, add } = setup();
    add(root({ 'reconcile.operation_count': 0n, 'reconcile.time': '2026-11-01T01:00:05.339362000+01:00' }));
    add(root({ 'reconcile.operation_count': 0n, 'reconcile.time': '2026-11-01T00:00:05.339363Z' }, '00f067aa0ba902b8'));
    deepStrictEqual(
      sink.attempts.map((a) => a.time),
      ['2026-11-01T01:00:05.339362000+01:00', '2026-11-01T00:00:05.339362Z'],
    );
  });

  it('names an operation by reconcile.operation over the span name; an explicit outcome wins over the status', () => {
    const { sink, add } = setup();
    add(
      root({ 'reconcile.operation_count': 4n }),
      child(1, 'client call', { 'reconcile.operation': 'A' }),
      child(2, 'B', { 'reconcile.outcome': 'ok' }, [2, 'ignored']),
      child(3, 'C', {}, [2, '']),
      child(4, 'D', { 'reconcile.outcome': 'skip' }),
    );
    deepStrictEqual(
      sink.attempts[0]!.operations.map(({ name, outcome, error }) => ({ name, outcome, error })),
      [
        { name: 'A', outcome: 'ok', error: undefined },
        { name: 'B', outcome: 'ok', error: undefined },
        { name: 'C', outcome: 'error', error: undefined },
        { name: 'D', outcome: 'skip', error: undefined },
      ],
    );
  });

  it('keeps arrival order between children that started at the same nanosecond', () => {
    const { sink, add } = setup();
    add(root({ 'reconcile.operation_count': 2n }), span('d000000000000002', 'Second', ROOT, T0, T0), span('d000000000000001', 'First', ROOT, T0, T0));
    deepStrictEqual(
      sink.attempts[0]!.operations.map((o) => o.name),
      ['Second', 'First'],
    );
  });

  it('rejects every span of an attempt whose root or operation is invalid, with the journal validator message', () => {
    const { sink, clock, add } = setup({ knownOperations: new Set(['A']) });
    const ids = ['00f067aa0ba902b8', '00f067aa0ba902b9', '00f067aa0ba902ba'];
    add(root({ 'reconcile.operation_count': 1n, 'reconcile.model': 'parallel' }), child(1, 'A'));
    add(root({ 'reconcile.operation_count': 1n }, ids[0]), child(2, 'Z', {}, [0, ''], ids[0]));
    add(root({ 'reconcile.operation_count': 1n }, ids[1]), child(3, 'A', { 'reconcile.outcome': 'maybe' }, [0, ''], ids[1]));
    // a count that is no number cannot complete the attempt: it settles, then is refused
    add(root({ 'reconcile.operation_count': 'many' }, ids[2]));
    clock.advance(2_000);
    strictEqual(sink.attempts.length, 0);
    const attempt = (id: string): string => `attempt of root ${id} in trace ${TRACE}`;
    deepStrictEqual(
      sink.rejections.map((r) => [r.reason, r.message.replace(/^span \w+ \("\w+"\) in trace \w+: /, '')]),
      [
        ['invalid_record', `${attempt(ROOT)}: model: must be sequential or phased, got "parallel"`],
        ['invalid_record', `${attempt(ROOT)}: model: must be sequential or phased, got "parallel"`],
        ['unknown_operation', `${attempt(ids[0]!)}: operations[0].name: unknown operation "Z"`],
        ['unknown_operation', `${attempt(ids[0]!)}: operations[0].name: unknown operation "Z"`],
        ['invalid_record', `${attempt(ids[1]!)}: operations[0].outcome: must be one of ok|error|stop|skip, got "maybe"`],
        ['invalid_record', `${attempt(ids[1]!)}: operations[0].outcome: must be one of ok|error|stop|skip, got "maybe"`],
        ['invalid_record', `${attempt(ids[2]!)}: reconcile.operation_count: must be a non-negative integer`],
      ],
    );
  });

  it('makes room at a pending limit: settling attempts first, as complete, then the oldest; refuses only its own overflow', () => {
    const { sink, asm, add } = setup({ maxPendingAttempts: 2, maxPendingSpans: 3 });
    const [a1, a2, a3, a4] = ['00000000000000a1', '00000000000000a2', '00000000000000a3', '00000000000000a4'];
    const counted = (n: bigint): Record<string, AttributeValue> => ({ 'reconcile.operation_count': n });
    // a1 settles (no count), a2 waits for two children; a third attempt makes a1 give way, as complete
    add(root({}, a1), root(counted(2n), a2), root({}, a3));
    deepStrictEqual(
      sink.attempts.map((a) => [a.origin.spanId, a.operations.length, a.origin.incomplete]),
      [[a1, 0, false]],
    );
    // three spans pending (a2, a3, a2's child): the next makes the settling a3 give way, then a2 completes
    add(child(1, 'A', {}, [0, ''], a2), child(2, 'B', {}, [0, ''], a2));
    deepStrictEqual(
      sink.attempts.map((a) => [a.origin.spanId, a.operations.length, a.origin.incomplete]),
      [
        [a1, 0, false],
        [a3, 0, false],
        [a2, 2, false],
      ],
    );
    // with no settling attempt left, the oldest (a5) gives way as incomplete; the attempt that passes the limit on its own is refused
    const [a5] = ['00000000000000a5'];
    add(root(counted(2n), a5), child(6, 'F', {}, [0, ''], a5), root(counted(5n), a4), child(3, 'C', {}, [0, ''], a4), child(4, 'D', {}, [0, ''], a4));
    add(child(5, 'E', {}, [0, ''], a4));
    deepStrictEqual(
      sink.attempts.slice(3).map((a) => [a.origin.spanId, a.operations.length, a.origin.incomplete]),
      [[a5, 1, true]],
    );
    deepStrictEqual(
      sink.rejections.map((r) => [r.reason, r.message.replace(/^span \w+ \("\w+"\) in trace \w+: /, '')]),
      [['pending_limit', 'the receiver already holds 3 pending spans, its limit']],
    );
    strictEqual(asm.pendingSpans, 3);
  });

  it('hands on a stream of attempts without a count as complete when the store fills faster than they settle', () => {
    const attempt = (a: number): OtlpSpan[] => {
      const id = (0x1000 + a).toString(16).padStart(16, '0');
      const op = (n: number): OtlpSpan => ({ ...child(n, `OP${n}`, {}, [0, ''], id), spanId: (0x100000 + 16 * a + n).toString(16).padStart(16, '0') });
      return [op(1), op(2), op(3), root({}, id)];
    };
    // room for ten attempts of a root and three operations; a hundred arrive within one settle time
    const { sink, clock, asm, add } = setup({ maxPendingBytes: 10 * attempt(0).reduce((n, s) => n + heldBytes(s), 0) });
    for (let a = 0; a < 100; a++) {
      add(...attempt(a));
      clock.advance(10);
    }
    strictEqual(sink.attempts.length, 90);
    strictEqual(asm.pendingAttempts, 10);
    clock.advance(2_000);
    strictEqual(sink.attempts.length, 100);
    deepStrictEqual(
      sink.attempts.filter((a) => a.origin.incomplete || a.operations.length !== 3),
      [],
    );
    deepStrictEqual(sink.rejections, []);
  });

  it('on flush hands on settling attempts as complete, short ones as incomplete, and refuses rootless children as shutdown', () => {
    const { sink, clock, asm, add } = setup();
    add(root(), child(1, 'A'), child(2, 'B', {}, [0, ''], '00000000000000ff'));
    add(root({ 'reconcile.operation_count': 3n }, '00000000000000b1'), child(3, 'C', {}, [0, ''], '00000000000000b1'));
    asm.flush();
    deepStrictEqual(
      sink.attempts.map((a) => [a.origin.spanId, a.operations.length, a.origin.incomplete]),
      [
        [ROOT, 1, false],
        ['00000000000000b1', 1, true],
      ],
    );
    deepStrictEqual(sink.reasons(), ['shutdown']);
    strictEqual(asm.pendingAttempts + asm.pendingSpans + clock.activeTimers, 0);
  });
});
