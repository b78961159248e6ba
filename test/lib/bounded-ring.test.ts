/** lib/bounded-ring.ts: the collector's one bounded memory, oldest forgotten first. */
import { strict as assert } from 'node:assert';
import { BoundedMap, BoundedRing } from '../../lib/bounded-ring.js';

describe('lib/bounded-ring.ts', () => {
  describe('BoundedRing', () => {
    it('forgets nothing until full, then the oldest item for each new one, in the order they came', () => {
      const ring = new BoundedRing<string>(3);
      assert.deepEqual(
        ['a', 'b', 'c'].map((x) => ring.push(x)),
        [undefined, undefined, undefined],
      );
      assert.equal(ring.size, 3);
      assert.deepEqual(
        ['d', 'e', 'f', 'g', 'h'].map((x) => ring.push(x)),
        ['a', 'b', 'c', 'd', 'e'],
      );
      assert.equal(ring.size, 3);
    });

    it('keeps an item pushed twice twice', () => {
      const ring = new BoundedRing<string>(2);
      assert.deepEqual(
        ['a', 'a', 'b', 'c'].map((x) => ring.push(x)),
        [undefined, undefined, 'a', 'a'],
      );
    });

    it('at capacity 1 forgets the previous item; at capacity 0 (or less) the item itself', () => {
      const one = new BoundedRing<string>(1);
      assert.deepEqual(
        ['a', 'b', 'c'].map((x) => one.push(x)),
        [undefined, 'a', 'b'],
      );
      for (const capacity of [0, -1]) {
        const none = new BoundedRing<string>(capacity);
        assert.deepEqual(
          ['a', 'b'].map((x) => none.push(x)),
          ['a', 'b'],
        );
        assert.equal(none.size, 0);
      }
    });
  });

  describe('BoundedMap', () => {
    it('forgets its oldest key when a new key comes past the capacity', () => {
      const map = new BoundedMap<string, number>(2);
      map.set('a', 1);
      map.set('b', 2);
      assert.deepEqual([map.get('a'), map.get('b')], [1, 2]);
      map.set('c', 3);
      assert.deepEqual(
        ['a', 'b', 'c'].map((k) => [map.has(k), map.get(k)]),
        [
          [false, undefined],
          [true, 2],
          [true, 3],
        ],
      );
      map.set('d', 4);
      assert.deepEqual(
        ['b', 'c', 'd'].map((k) => map.has(k)),
        [false, true, true],
      );
    });

    it('setting a held key again changes its value, not its place', () => {
      const map = new BoundedMap<string, number>(2);
      map.set('a', 1);
      map.set('b', 2);
      map.set('a', 10);
      assert.equal(map.get('a'), 10);
      // 'a' was first set before 'b': it is still the oldest
      map.set('c', 3);
      assert.deepEqual(
        ['a', 'b', 'c'].map((k) => map.get(k)),
        [undefined, 2, 3],
      );
      // and once forgotten, setting it again makes it the newest
      map.set('a', 11);
      assert.deepEqual(
        ['a', 'b', 'c'].map((k) => map.get(k)),
        [11, undefined, 3],
      );
    });

    it('at capacity 1 holds the latest key; at capacity 0 none', () => {
      const one = new BoundedMap<string, number>(1);
      one.set('a', 1);
      one.set('a', 2);
      assert.equal(one.get('a'), 2);
      one.set('b', 3);
      assert.deepEqual([one.has('a'), one.get('b')], [false, 3]);
      const none = new BoundedMap<string, number>(0);
      none.set('a', 1);
      assert.deepEqual([none.has('a'), none.get('a')], [false, undefined]);
    });
  });
});
