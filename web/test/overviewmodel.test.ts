import assert from 'node:assert/strict';
import { test } from 'node:test';
import { coarseLayout, communities, LayoutRun } from '../src/graph/overview/layoutrun';
import { communityColours, Convergence, COMMUNITY_PALETTE, degreeSize, edgeAlpha, importantNodes, movement, SMALL_COMMUNITY, withAlpha } from '../src/graph/overview/model';

/** `groups` dense groups of `size` nodes each (every node linked to the next few in its group) and one link between consecutive groups. */
function groups(count: number, size: number): { nodes: number; source: number[]; target: number[] } {
  const source: number[] = [];
  const target: number[] = [];
  for (let g = 0; g < count; g++) {
    for (let i = 0; i < size; i++) for (let k = 1; k <= 3; k++) { source.push(g * size + i); target.push(g * size + ((i + k) % size)); }
    if (g > 0) { source.push(g * size); target.push((g - 1) * size); }
  }
  return { nodes: count * size, source, target };
}

test('the largest communities get the palette in order, singletons and the tail one grey', () => {
  const community = [5, 5, 5, 2, 2, 9, 7, 7, 7, 7];
  const degree = [1, 8, 2, 1, 1, 0, 3, 1, 9, 1];
  const names = community.map((_, i) => `n${i}`);
  const { colours, legend } = communityColours(community, degree, names, ['#aaaaaa', '#bbbbbb']);
  assert.deepEqual(legend.map((l) => [l.community, l.size, l.name]), [[7, 4, 'n8'], [5, 3, 'n1']], 'by size, named after the best-connected member');
  assert.equal(colours[6], '#aaaaaa');
  assert.equal(colours[0], '#bbbbbb');
  assert.equal(colours[3], SMALL_COMMUNITY, 'past the palette: grey');
  assert.equal(colours[5], SMALL_COMMUNITY, 'a community of one: grey');
});

test('community colours do not depend on the order communities are numbered in, only on their sizes', () => {
  const a = communityColours([0, 0, 1, 1, 1], [1, 1, 1, 1, 1], ['a', 'b', 'c', 'd', 'e']);
  const b = communityColours([3, 3, 8, 8, 8], [1, 1, 1, 1, 1], ['a', 'b', 'c', 'd', 'e']);
  assert.deepEqual(a.colours, b.colours);
  assert.equal(a.colours[2], COMMUNITY_PALETTE[0]);
});

test('node size grows with degree, from min for a leaf to max for the best-connected, hubs far apart from the rest', () => {
  assert.equal(degreeSize(0, 100), 1.2);
  assert.equal(degreeSize(100, 100), 12);
  assert.ok(degreeSize(10, 100) < degreeSize(50, 100));
  assert.ok(degreeSize(25, 100) < 1.2 + (12 - 1.2) * 0.25, 'a quarter of the degree is under a quarter of the size: typical notes stay dots');
  assert.equal(degreeSize(500, 100), 12, 'never past max');
  assert.equal(degreeSize(3, 0), 1.2);
});

test('links fade as there are more of them, within bounds', () => {
  assert.equal(edgeAlpha(10), 0.6);
  assert.ok(edgeAlpha(64_000) < edgeAlpha(4000));
  assert.ok(edgeAlpha(4000) < edgeAlpha(500));
  assert.equal(edgeAlpha(10_000_000), 0.03);
  assert.equal(withAlpha('#b8c0cc', 0.25), 'rgba(46, 48, 51, 0.25)', 'premultiplied, as sigma blends');
  assert.equal(withAlpha('#4a5260', 1), 'rgba(74, 82, 96, 1)');
});

test('labels go to the best-connected nodes first, ties to the first', () => {
  assert.deepEqual([...importantNodes([1, 9, 3, 9, 0], 3)].sort(), [1, 2, 3]);
  assert.deepEqual([...importantNodes([2, 2, 2], 2)].sort(), [0, 1]);
  assert.equal(importantNodes([1, 2], 0).size, 0);
});

test('convergence: settled after `patience` calm iterations in a row, not before the minimum', () => {
  const c = new Convergence(0.01, 3, 5, 100);
  for (let i = 0; i < 4; i++) assert.equal(c.step(0, 100), false, 'calm, but under the minimum');
  assert.equal(c.step(0, 100), true);
  assert.equal(c.reason, 'converged');
  const d = new Convergence(0.01, 3, 1, 100);
  d.step(0.5, 100); d.step(0.5, 100); d.step(5, 100);  // a jolt resets the count
  assert.equal(d.step(0.5, 100), false);
  d.step(0.5, 100);
  assert.equal(d.step(0.5, 100), true);
});

test('convergence: a layout that keeps moving stops at the iteration budget, and says so', () => {
  const c = new Convergence(0.01, 3, 1, 20);
  let settled = false;
  for (let i = 0; i < 20; i++) settled = c.step(50, 100);
  assert.equal(settled, true);
  assert.equal(c.reason, 'budget');
  assert.equal(c.iterations, 20);
});

test('movement: the mean distance moved and the extent', () => {
  const m = movement([0, 0, 10, 0], [3, 4, 10, 0]);
  assert.equal(m.meanMove, 2.5);
  assert.equal(m.extent, 7);
});

test('Louvain finds planted groups', () => {
  const input = groups(6, 30);
  const c = communities(input);
  for (let g = 0; g < 6; g++) {
    const members = new Set(Array.from(c.slice(g * 30, g * 30 + 30)));
    assert.equal(members.size, 1, `group ${g} is one community`);
  }
  assert.equal(new Set(c).size, 6);
});

test('the force layout converges (not by budget), and keeps each group together', () => {
  const input = groups(5, 40);
  const run = new LayoutRun(input, communities(input));
  while (!run.step()) { /* until settled */ }
  assert.equal(run.convergence.reason, 'converged');
  assert.ok(run.convergence.iterations < run.convergence.maxIterations);
  // Each group's nodes are nearer their own group's centre than another group's.
  const centre = (g: number) => {
    let [x, y] = [0, 0];
    for (let i = g * 40; i < g * 40 + 40; i++) { x += run.positions[2 * i]; y += run.positions[2 * i + 1]; }
    return [x / 40, y / 40];
  };
  const centres = [0, 1, 2, 3, 4].map(centre);
  let misplaced = 0;
  for (let i = 0; i < input.nodes; i++) {
    const d = centres.map(([x, y]) => Math.hypot(run.positions[2 * i] - x, run.positions[2 * i + 1] - y));
    if (d.indexOf(Math.min(...d)) !== Math.floor(i / 40)) misplaced++;
  }
  assert.ok(misplaced <= input.nodes * 0.05, `${misplaced} of ${input.nodes} nodes nearer another group`);
});

test('the community-level layout (100,000 nodes): each community a disc of its members, discs apart, tiny ones gathered by group', () => {
  const input = { ...groups(6, 30), group: new Int32Array(6 * 30 + 4).fill(0) };
  input.nodes += 4;  // four nodes without links: communities of one, gathered into their group's disc
  input.group.fill(1, 180);
  const community = communities(input);
  const { positions, run } = coarseLayout(input, community);
  assert.equal(run.convergence.reason, 'converged');
  const centre = (from: number, to: number) => {
    let [x, y] = [0, 0];
    for (let i = from; i < to; i++) { x += positions[2 * i]; y += positions[2 * i + 1]; }
    return [x / (to - from), y / (to - from)];
  };
  const discs = [0, 1, 2, 3, 4, 5].map((g) => centre(g * 30, g * 30 + 30)).concat([centre(180, 184)]);
  const radius = [...Array(6).fill(2 * Math.sqrt(30.5)), 2 * Math.sqrt(4.5)];
  for (let i = 0; i < input.nodes; i++) {
    const d = i < 180 ? Math.floor(i / 30) : 6;
    const [x, y] = discs[d];
    assert.ok(Math.hypot(positions[2 * i] - x, positions[2 * i + 1] - y) <= radius[d] + 1e-3, `node ${i} is inside its disc`);
  }
  for (let a = 0; a < discs.length; a++) {
    for (let b = a + 1; b < discs.length; b++) {
      const gap = Math.hypot(discs[a][0] - discs[b][0], discs[a][1] - discs[b][1]);
      assert.ok(gap >= 0.8 * (radius[a] + radius[b]), `discs ${a} and ${b} overlap: ${gap.toFixed(1)} apart`);
    }
  }
});
