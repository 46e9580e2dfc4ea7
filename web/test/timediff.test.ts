import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Columns, Neighborhood } from '../src/graph/build';
import { edgeKey, memoryIdOfPath, mergeNeighborhoods, mergeOverviews, noteChanges, timeSteps } from '../src/graph/timediff';
import type { ChangeSet } from '../src/time/types';

function columns(nodes: [string, string][], edges: [number, number, string | null][]): Columns {
  return {
    id: nodes.map((n) => n[0]), kind: nodes.map((n) => n[1]), label: nodes.map((n) => n[0].split(/[:/]/).pop()!),
    scope: nodes.map(() => 'shared'), type: nodes.map(() => null), problems: nodes.map(() => 0), memoryOff: nodes.map(() => false),
    degree: nodes.map(() => 1), source: edges.map((e) => e[0]), target: edges.map((e) => e[1]), status: edges.map((e) => e[2]),
  };
}

const diffOf = (over: Partial<ChangeSet['notes']>): ChangeSet => ({
  since: '', until: '', notes: { added: [], removed: [], changed: [], ...over },
  links: { broken: [], fixed: [] }, problems: { new: [], gone: [] }, notKept: [],
});
const note = (path: string) => ({ path, origin: 'tool', by: 'admin' });

test('paths and change sets become node ids', () => {
  assert.equal(memoryIdOfPath('memory/shared/glossary.md'), 'memory:shared/glossary');
  assert.equal(memoryIdOfPath('agents/on-call.md'), null);
  const ids = noteChanges(diffOf({ added: [note('memory/a/x.md')], changed: [{ ...note('memory/shared/y.md'), before: '1', after: '2' }], removed: [note('workflows/w.yaml')] }));
  assert.deepEqual([...ids.added], ['memory:a/x']);
  assert.deepEqual([...ids.changed], ['memory:shared/y']);
  assert.deepEqual([...ids.removed], []);
  assert.equal(edgeKey('a', 'b', 'broken'), edgeKey('a', 'b', 'BROKEN'));  // the overview's lower case, the API's upper
  assert.notEqual(edgeKey('a', 'b', 'broken'), edgeKey('a', 'b', 'resolved'));
  assert.equal(edgeKey('a', 'b', null), 'a\u0000b\u0000REMEMBERS');
});

test('the whole workspace then and now: then first, what came since after, each marked', () => {
  // Then: a -> x (broken), a -> b; b changed since; x fixed since (a -> c now), d new.
  const then = columns([['memory:s/a', 'memory'], ['memory:s/b', 'memory'], ['unresolved:x', 'unresolved']], [[0, 2, 'broken'], [0, 1, 'resolved']]);
  const now = columns([['memory:s/b', 'memory'], ['memory:s/a', 'memory'], ['memory:s/c', 'memory'], ['memory:s/d', 'memory']], [[1, 0, 'resolved'], [1, 2, 'resolved'], [3, 0, 'resolved']]);
  const { columns: c, diff } = mergeOverviews(then, now, noteChanges(diffOf({ changed: [{ ...note('memory/s/b.md'), before: '1', after: '2' }] })));
  assert.deepEqual(c.id, ['memory:s/a', 'memory:s/b', 'unresolved:x', 'memory:s/c', 'memory:s/d']);
  assert.deepEqual(Object.fromEntries(diff.nodes), { 'unresolved:x': 'removed', 'memory:s/b': 'changed', 'memory:s/c': 'added', 'memory:s/d': 'added' });
  // Every link once, by the merged index: then's two, and the two that came since.
  assert.deepEqual(c.source.map((s, k) => `${c.id[s]}>${c.id[c.target[k]]}`), ['memory:s/a>unresolved:x', 'memory:s/a>memory:s/b', 'memory:s/a>memory:s/c', 'memory:s/d>memory:s/b']);
  assert.equal(diff.edges.get(edgeKey('memory:s/a', 'unresolved:x', 'BROKEN')), 'removed');
  assert.equal(diff.edges.get(edgeKey('memory:s/a', 'memory:s/c', 'RESOLVED')), 'added');
  assert.equal(diff.edges.has(edgeKey('memory:s/a', 'memory:s/b', 'RESOLVED')), false);
  assert.deepEqual(diff.counts, { added: 2, removed: 1, changed: 1, linksAdded: 2, linksRemoved: 1 });
  // Nothing changed: nothing marked.
  const same = mergeOverviews(then, then, noteChanges(null));
  assert.equal(same.diff.nodes.size + same.diff.edges.size, 0);
  assert.deepEqual(same.columns.id, then.id);
});

const nb = (nodes: string[], edges: [string, string, string | null][]): Neighborhood => ({
  truncated: false,
  nodes: nodes.map((id) => ({ __typename: id.startsWith('unresolved:') ? 'Unresolved' : 'Memory', id })),
  edges: edges.map(([source, target, status]) => ({ type: status ? 'LINKS_TO' : 'REMEMBERS', source, target, link: status ? { status } : null })),
});

test('a neighbourhood then and now: notes marked from the changes, unresolved targets and links by presence', () => {
  const then = nb(['memory:s/a', 'memory:s/b', 'unresolved:x'], [['memory:s/a', 'memory:s/b', 'RESOLVED'], ['memory:s/a', 'unresolved:x', 'BROKEN']]);
  const now = nb(['memory:s/a', 'memory:s/c'], [['memory:s/a', 'memory:s/c', 'RESOLVED']]);
  // b is not reached now (its link went) but still exists: it is not marked removed.
  const { nb: merged, diff } = mergeNeighborhoods(then, now, noteChanges(diffOf({ changed: [{ ...note('memory/s/a.md'), before: '1', after: '2' }], added: [note('memory/s/c.md')] })));
  assert.deepEqual(merged!.nodes.map((n) => n.id), ['memory:s/a', 'memory:s/b', 'unresolved:x', 'memory:s/c']);
  assert.deepEqual(Object.fromEntries(diff.nodes), { 'memory:s/a': 'changed', 'unresolved:x': 'removed', 'memory:s/c': 'added' });
  assert.equal(diff.edges.get(edgeKey('memory:s/a', 'memory:s/b', 'RESOLVED')), 'removed');
  assert.equal(diff.edges.get(edgeKey('memory:s/a', 'memory:s/c', 'RESOLVED')), 'added');
  // The node did not exist then: what it reaches now is there, it alone marked added.
  const born = mergeNeighborhoods(null, now, noteChanges(diffOf({ added: [note('memory/s/a.md')] })));
  assert.deepEqual(Object.fromEntries(born.diff.nodes), { 'memory:s/a': 'added' });
  assert.equal(born.diff.counts.linksAdded, 1);
  // It does not exist now: then's neighbourhood, its links not called removed without a now to compare.
  const gone = mergeNeighborhoods(then, null, noteChanges(diffOf({ removed: [note('memory/s/a.md')] })));
  assert.deepEqual(Object.fromEntries(gone.diff.nodes), { 'memory:s/a': 'removed' });
  assert.equal(mergeNeighborhoods(null, null, noteChanges(null)).nb, null);
});

test('the slider stops just before each recorded change, oldest first, then now', () => {
  const records = [
    { at: '2026-12-06T10:00:00Z', actor: 'admin', command: 'delete', path: 'memory/shared/b.md' },
    { at: '2026-12-06T09:00:00Z', actor: 'agent:on-call', command: 'put', path: 'memory/on-call/a.md' },
  ];
  const steps = timeSteps(records, null, false);
  assert.deepEqual(steps.map((s) => s.moment), ['2026-12-06T08:59:59.999Z', '2026-12-06T09:59:59.999Z', null]);
  assert.equal(steps[0].label, '2026-12-06 08:59:59 UTC, before put memory/on-call/a.md by agent:on-call');
  assert.equal(steps[2].label, 'now');
  // The whole history: nothing before its first record can be shown, so the first stop is after it.
  assert.deepEqual(timeSteps(records, null, true).map((s) => s.moment), ['2026-12-06T09:00:00Z', '2026-12-06T09:59:59.999Z', null]);
  // A moment the route names is a stop in its place.
  const between = timeSteps(records, '2026-12-06T09:30:00Z', true);
  assert.deepEqual(between.map((s) => s.moment), ['2026-12-06T09:00:00Z', '2026-12-06T09:30:00Z', '2026-12-06T09:59:59.999Z', null]);
  assert.deepEqual(timeSteps([], '2026-12-01T00:00:00Z', true).map((s) => s.moment), ['2026-12-01T00:00:00Z', null]);
});
