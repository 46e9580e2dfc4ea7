import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CHANGE_COLOURS, changeLegend, linkLook, nodeLook, UNCHANGED_LINK, UNCHANGED_NODE } from '../src/time/colour';

test('each kind of change has its own colour, apart from the unchanged grey', () => {
  const colours = [CHANGE_COLOURS.added, CHANGE_COLOURS.removed, CHANGE_COLOURS.changed, UNCHANGED_NODE];
  assert.equal(new Set(colours).size, 4);
  assert.deepEqual(nodeLook('added', 4), { color: CHANGE_COLOURS.added, size: 6, zIndex: 3, forceLabel: true });
  assert.deepEqual(nodeLook(null, 4), { color: UNCHANGED_NODE, size: 4, zIndex: 1 });
  assert.deepEqual(linkLook('removed', 0.5), { color: CHANGE_COLOURS.removed, size: 2, zIndex: 2 });
  assert.deepEqual(linkLook(undefined, 0.5), { color: UNCHANGED_LINK, size: 1, zIndex: 0 });
});

test('the legend names each kind with its count, in the colours the drawing uses', () => {
  const legend = changeLegend({ added: 1, removed: 2, changed: 0, linksAdded: 3, linksRemoved: 1 });
  assert.deepEqual(legend.map((e) => e.label), [
    'added since (1 node, 3 links)', 'removed since (2 nodes, 1 link)', 'changed since (0 notes)', 'unchanged',
  ]);
  assert.deepEqual(legend.map((e) => e.colour), [CHANGE_COLOURS.added, CHANGE_COLOURS.removed, CHANGE_COLOURS.changed, UNCHANGED_NODE]);
});
