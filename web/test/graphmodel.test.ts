import assert from 'node:assert/strict';
import { test } from 'node:test';
import { clusterLayout, clusterOf, edgeColour, fanOut, hashColour, hslHex, isProblemStatus, nodeColour, nodeSize, drawableEdges, STATUS_COLOURS, typicalSpacing, type NodeAttrs } from '../src/graph/model';

const node = (over: Partial<NodeAttrs>): NodeAttrs => ({ kind: 'memory', label: 'x', scope: 'a', memType: null, problems: 0, memoryOff: false, ...over });

test('unresolved nodes stay red whatever the colouring', () => {
  for (const by of ['kind', 'scope', 'type'] as const) assert.equal(nodeColour(node({ kind: 'unresolved' }), by), '#e15759');
});

test('colour by scope is stable per scope and differs between scopes', () => {
  assert.equal(nodeColour(node({ scope: 'on-call' }), 'scope'), nodeColour(node({ scope: 'on-call', label: 'y' }), 'scope'));
  assert.notEqual(hashColour('on-call'), hashColour('release-writer'));
  // Hex, as sigma's WebGL reads colours (an hsl() string was drawn black).
  assert.match(hashColour('on-call'), /^#[0-9a-f]{6}$/);
  assert.equal(hslHex(0, 1, 0.5), '#ff0000');
  assert.equal(hslHex(120, 1, 0.25), '#008000');
  assert.equal(hslHex(240, 0.5, 0.5), '#4040bf');
});

test('colour by type, and untyped grey', () => {
  assert.equal(nodeColour(node({ memType: 'FEEDBACK' }), 'type'), '#f28e2b');
  assert.equal(nodeColour(node({ memType: null }), 'type'), '#9aa0a6');
});

test('problem links stand out', () => {
  assert.ok(isProblemStatus('BROKEN') && isProblemStatus('AMBIGUOUS') && isProblemStatus('MISSING_ANCHOR'));
  assert.ok(!isProblemStatus('RESOLVED') && !isProblemStatus(null));
  assert.equal(edgeColour('BROKEN'), STATUS_COLOURS.BROKEN);
  assert.equal(edgeColour(null), STATUS_COLOURS.REMEMBERS);
});

test('nodes with problems are drawn bigger; sizes are capped', () => {
  assert.ok(nodeSize(node({ problems: 2 }), 1) > nodeSize(node({}), 1));
  assert.ok(nodeSize(node({}), 1_000_000) <= 20);
});

test('cluster layout: one disc per scope, no two nodes on one spot', () => {
  const nodes = [...Array(300)].map((_, i) => ({ cluster: clusterOf(node({ scope: `s${i % 5}` })) }));
  const pos = clusterLayout(nodes);
  assert.equal(pos.length, 300);
  const keys = new Set(pos.map((p) => `${p.x.toFixed(3)},${p.y.toFixed(3)}`));
  assert.equal(keys.size, 300);
  assert.equal(clusterOf(node({ kind: 'workflow', scope: null })), 'entities');
  assert.equal(clusterOf(node({ kind: 'unresolved', scope: null })), 'unresolved');
});

test('an overview draws every edge it is sent but self-links (the server picked the backbone)', () => {
  assert.deepEqual(drawableEdges([0, 1, 2, 3], [1, 2, 2, 0]), [0, 1, 3]);
  assert.deepEqual(drawableEdges([], []), []);
});

test('fan out: new neighbours around the node, away from the centre, spaced, none on another', () => {
  const around = { x: 10, y: 0 };
  const pos = fanOut(around, { x: 0, y: 0 }, 40, 2);
  assert.equal(pos.length, 40);
  for (const p of pos) {
    assert.ok(p.x >= around.x - 1e-9, `${p.x} faces away from the centre`);
    assert.ok(Math.hypot(p.x - around.x, p.y - around.y) >= 2 - 1e-9);
  }
  for (let i = 0; i < pos.length; i++) {
    for (let j = i + 1; j < pos.length; j++) {
      assert.ok(Math.hypot(pos[i].x - pos[j].x, pos[i].y - pos[j].y) > 0.5, `${i} and ${j} apart`);
    }
  }
  const all = fanOut({ x: 0, y: 0 }, { x: 0, y: 0 }, 5, 3);
  assert.equal(all.length, 5);
  assert.ok(all.some((p) => p.x < 0) && all.some((p) => p.x > 0), 'at the centre: all around');
  assert.equal(typicalSpacing([3, 1, 2, NaN, 0]), 2);
  assert.equal(typicalSpacing([], 7), 7);
});
