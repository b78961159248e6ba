/**
 * Which shards of an input a partial summary covers: `indices` of `count` (collector/input/shard.ts). Shard i of n is the
 * same objects as shards i, i + n, i + 2n, … of k·n, so coverages of different counts compare on a common count.
 * Two partials of one input merge only when their shards are disjoint (anything else would count objects twice);
 * the union is written in its coarsest form (shards 0 and 2 of 4 are shard 0 of 2; all shards are `0 of 1`).
 */

export interface Coverage {
  readonly count: number;
  /** Ascending, each below count. */
  readonly indices: readonly number[];
}

/** Coverages are compared on this many shards at most (counts that divide one another need no more than the larger). */
const MAX_COMMON_COUNT = 1 << 20;

export function isComplete(c: Coverage): boolean {
  return c.indices.length === c.count;
}

/** The union of two disjoint coverages; throws naming the shards both hold. */
export function unite(a: Coverage, b: Coverage): Coverage {
  const count = lcm(a.count, b.count);
  if (count > MAX_COMMON_COUNT)
    throw new RangeError(`shards of ${a.count} and of ${b.count} have no common count below ${MAX_COMMON_COUNT}: shard counts should divide one another`);
  const x = expand(a, count);
  const y = expand(b, count);
  const both = x.filter((i) => y.includes(i));
  if (both.length > 0)
    throw new RangeError(`both cover shard${both.length > 1 ? 's' : ''} ${both.slice(0, 5).join(', ')}${both.length > 5 ? ', …' : ''} of ${count}`);
  return coarsest({ count, indices: [...x, ...y].sort((p, q) => p - q) });
}

/** The indices of `c` on `count` shards (a multiple of c.count). */
function expand(c: Coverage, count: number): number[] {
  const out: number[] = [];
  for (let k = 0; k < count / c.count; k++) for (const i of c.indices) out.push(i + k * c.count);
  return out.sort((p, q) => p - q);
}

/** The same set of objects on the fewest shards: the smallest divisor d of count such that membership depends on index mod d. */
export function coarsest(c: Coverage): Coverage {
  const member = new Set(c.indices);
  for (let d = 1; d <= c.count; d++) {
    if (c.count % d !== 0) continue;
    let periodic = true;
    for (let i = 0; i < c.count && periodic; i++) periodic = member.has(i) === member.has(i % d);
    if (periodic) return { count: d, indices: c.indices.filter((i) => i < d) };
  }
  return c;
}

function lcm(a: number, b: number): number {
  const gcd = (x: number, y: number): number => (y === 0 ? x : gcd(y, x % y));
  return (a / gcd(a, b)) * b;
}
