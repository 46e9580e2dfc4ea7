import assert from 'node:assert/strict';
import { test } from 'node:test';
import { overlaps, pushApart } from '../src/graph/overview/packing';

// A seeded pile: what a scope's clusters looked like after ForceAtlas2 (discs over one another).
function pile(n: number, spread: number, seed = 1): { x: Float64Array; y: Float64Array; r: Float64Array } {
  let s = seed;
  const rnd = () => { s = (s * 16807) % 2147483647; return s / 2147483647; };
  const x = new Float64Array(n), y = new Float64Array(n), r = new Float64Array(n);
  for (let i = 0; i < n; i++) { x[i] = rnd() * spread; y[i] = rnd() * spread; r[i] = 4 + 24 * Math.sqrt(rnd()); }
  return { x, y, r };
}

test('a pile of discs is pushed apart until none overlaps, with the gap asked for', () => {
  for (const seed of [1, 2, 3]) {
    const { x, y, r } = pile(300, 200, seed);
    assert.ok(overlaps(x, y, r) > 100, 'the pile overlaps to begin with');
    assert.equal(pushApart(x, y, r, 3), 0);
    assert.equal(overlaps(x, y, r, 3), 0);
  }
});

test('discs on the same spot part, and discs already apart do not move', () => {
  const x = Float64Array.from([10, 10, 500]), y = Float64Array.from([10, 10, 500]), r = Float64Array.from([5, 8, 5]);
  assert.equal(pushApart(x, y, r, 2), 0);
  assert.equal(overlaps(x, y, r, 2), 0);
  assert.deepEqual([x[2], y[2]], [500, 500]);
});

test('the picture keeps its shape: discs left of others stay left of them', () => {
  const { x, y, r } = pile(60, 400, 9);
  const order = [...x.keys()].sort((a, b) => x[a] - x[b]);
  pushApart(x, y, r, 3);
  const after = [...x.keys()].sort((a, b) => x[a] - x[b]);
  const moved = order.filter((k, i) => Math.abs(after.indexOf(k) - i) > 10).length;
  assert.ok(moved < 6, `${moved} discs changed places by more than ten`);
});
