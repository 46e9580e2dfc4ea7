import assert from 'node:assert/strict';
import { test } from 'node:test';
import { countsLabel, groupChanges, groupTitle, isEmpty, KIND_LABEL, originLabel, scopeOf, whoLabel } from '../src/time/group';
import type { ChangeSet } from '../src/time/types';

const empty = (): ChangeSet => ({
  since: '2026-12-01T00:00:00Z', until: '2026-12-08T00:00:00Z',
  notes: { added: [], removed: [], changed: [] }, links: { broken: [], fixed: [] }, problems: { new: [], gone: [] }, notKept: [],
});

const diff = (): ChangeSet => ({
  ...empty(),
  notes: {
    added: [{ path: 'memory/on-call/new.md', origin: 'tool', by: 'agent:on-call' }],
    removed: [{ path: 'memory/shared/old.md', origin: 'ui', by: 'admin' }],
    changed: [
      { path: 'memory/shared/glossary.md', before: 'a', after: 'b', origin: 'external', by: 'external' },
      { path: 'memory/billing/rates.md', before: 'c', after: 'd', origin: 'consolidate', by: 'agent:billing' },
      { path: 'agents/on-call.md', before: 'e', after: 'f', origin: 'external', by: 'external' },
    ],
  },
  links: { broken: [{ source: 'memory/on-call/new.md', target: 'nowhere', line: 6 }], fixed: [{ source: 'memory/shared/glossary.md', target: 'team-roster', line: 3 }] },
  problems: {
    new: [{ path: 'memory/on-call/new.md', code: 'broken-link', message: 'no note named nowhere', line: 6 }],
    gone: [{ path: 'memory/shared/glossary.md', code: 'broken-link', message: 'no note named team-roster', line: 3 }],
  },
  notKept: [{ path: 'memory/shared/glossary.md', side: 'before', hash: 'a' }, { path: 'memory/shared/glossary.md', side: 'before', hash: 'a' }],
});

test('changes group per scope: shared first, then agents by name, then files outside memory', () => {
  const groups = groupChanges(diff());
  assert.deepEqual(groups.map((g) => g.scope), ['shared', 'billing', 'on-call', null]);
  assert.deepEqual(groups.map((g) => g.title), ['Shared', "billing's memory", "on-call's memory", 'Other files']);
  assert.deepEqual(groups[0].rows.map((r) => [r.kind, r.path]), [['changed', 'memory/shared/glossary.md'], ['removed', 'memory/shared/old.md']]);
  assert.deepEqual(groups[3].rows.map((r) => r.path), ['agents/on-call.md']);
});

test('each note carries its origin, who, and what its change did to links and problems', () => {
  const [shared, , onCall] = groupChanges(diff());
  const glossary = shared.rows[0];
  assert.equal(glossary.origin, 'external');
  assert.deepEqual(glossary.fixed.map((l) => l.target), ['team-roster']);
  assert.deepEqual(glossary.goneProblems.map((p) => p.code), ['broken-link']);
  assert.deepEqual(glossary.notKept, ['before']);  // said once, however often the server lists it
  const added = onCall.rows[0];
  assert.deepEqual([added.kind, added.origin, added.by], ['added', 'tool', 'agent:on-call']);
  assert.deepEqual(added.broken, [{ source: 'memory/on-call/new.md', target: 'nowhere', line: 6 }]);
  assert.equal(added.newProblems.length, 1);
  assert.deepEqual(shared.counts, { added: 0, removed: 1, changed: 1, linked: 0, broken: 0, fixed: 1, newProblems: 0, goneProblems: 1 });
  assert.equal(countsLabel(shared.counts), '1 removed, 1 changed, 1 fixed, 1 gone');
  assert.equal(countsLabel(onCall.counts), '1 added, 1 link broken, 1 new problem');
});

test('a link broken in a note the window did not change shows on a row of its own', () => {
  // A note deleted in the window breaks the links to it in notes that stayed as they were.
  const c = empty();
  c.notes.removed.push({ path: 'memory/shared/y.md', origin: 'tool', by: 'admin' });
  c.links.broken.push({ source: 'memory/shared/x.md', target: 'y', line: 1 });
  const [g] = groupChanges(c);
  assert.deepEqual([g.rows[0].kind, g.rows[0].path, g.rows[0].broken.length], ['linked', 'memory/shared/x.md', 1]);
  assert.equal(KIND_LABEL[g.rows[0].kind], 'unchanged');
  assert.equal(countsLabel(g.counts), '1 removed, 1 unchanged with links broken or fixed, 1 link broken');
});

test('empty means no change of any kind, a lost version included', () => {
  assert.equal(isEmpty(empty()), true);
  assert.deepEqual(groupChanges(empty()), []);
  assert.equal(isEmpty(diff()), false);
  const lost = empty();
  lost.notKept.push({ path: 'memory/shared/a.md', side: 'after', hash: 'x' });
  assert.equal(isEmpty(lost), false);
});

test('origins and actors as people read them', () => {
  assert.equal(originLabel('tool'), 'memory tool');
  assert.equal(originLabel('external'), 'outside brain');
  assert.equal(originLabel('consolidate'), 'consolidation');
  assert.equal(originLabel('something-new'), 'something-new');
  assert.equal(whoLabel('agent:on-call'), 'agent on-call');
  assert.equal(whoLabel('admin'), 'admin');
  assert.equal(whoLabel('external'), null);
  assert.equal(scopeOf('memory/shared/a.md'), 'shared');
  assert.equal(scopeOf('memory/shared'), null);
  assert.equal(groupTitle(null), 'Other files');
});
