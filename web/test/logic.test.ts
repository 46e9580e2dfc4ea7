import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  backoffDelay, diffHunks, diffLines, filterProblems, formatSize, memoryFileName, newMemorySkeleton, noteOfId, noteOfPath,
  parseRoute, problemPlace, historyDiff, rankCandidates, routeHash, scopeOfPath, snippetParts, wikilinkQuery, type Problem,
} from '../src/logic';

test('formatSize', () => {
  assert.equal(formatSize(0), '0 B');
  assert.equal(formatSize(999), '999 B');
  assert.equal(formatSize(1528), '1.5 KB');
  assert.equal(formatSize(2_400_000), '2.4 MB');
});

test('a new memory starts with the description/type skeleton', () => {
  assert.equal(newMemorySkeleton('feedback'), '---\ndescription: \ntype: feedback\n---\n\n');
});

test('memory file names are kebab-case .md in the scope folder', () => {
  const cases: [string, string | null][] = [
    ['Release checklist', 'release-checklist.md'],
    ['houseStyle', 'house-style.md'],
    ['notes.md', 'notes.md'],
    ['  Café  menu ', 'café-menu.md'],
    ['', null], ['a/b', null], ['!!!', null],
  ];
  for (const [typed, want] of cases) {
    const got = memoryFileName(typed);
    if (want === null) assert.ok('error' in got, typed); else assert.deepEqual(got, { file: want }, typed);
  }
});

test('backoff doubles from 0.5 s to a 15 s ceiling, with jitter', () => {
  const mid = () => 0.5;
  assert.equal(backoffDelay(0, mid), 500);
  assert.equal(backoffDelay(1, mid), 1000);
  assert.equal(backoffDelay(3, mid), 4000);
  assert.equal(backoffDelay(20, mid), 15000);
  assert.equal(backoffDelay(0, () => 0), 400);
  assert.equal(backoffDelay(0, () => 1), 600);
});

test('diffLines keeps both sides and marks what changed', () => {
  const d = diffLines('a\nb\nc\n', 'a\nB\nc\nd\n');
  assert.deepEqual(d.map((l) => `${l.op}${l.text}`), [' a', '-b', '+B', ' c', '+d', ' ']);
  assert.deepEqual(diffLines('same', 'same').map((l) => l.op), [' ']);
  assert.deepEqual(diffLines('', 'x').map((l) => `${l.op}${l.text}`), ['-', '+x']);
});

test('diffLines on big inputs stays linear', () => {
  const a = Array.from({ length: 5000 }, (_, i) => `line ${i}`).join('\n');
  const b = Array.from({ length: 5000 }, (_, i) => `other ${i}`).join('\n');
  const d = diffLines(a, b);
  assert.equal(d.filter((l) => l.op === '-').length, 5000);
  assert.equal(d.filter((l) => l.op === '+').length, 5000);
});

test('wikilinkQuery finds the open [[ before the cursor', () => {
  assert.deepEqual(wikilinkQuery('see [[gloss'), { query: 'gloss', from: 6 });
  assert.deepEqual(wikilinkQuery('[['), { query: '', from: 2 });
  assert.equal(wikilinkQuery('see [[done]] and'), null);
  assert.equal(wikilinkQuery('[[x|label'), null);
  assert.equal(wikilinkQuery('[[x#Head'), null);
  assert.equal(wikilinkQuery('no link'), null);
});

test('rankCandidates: prefix matches first, then substrings', () => {
  const all = [{ name: 'team-roster', detail: '' }, { name: 'glossary', detail: '' }, { name: 'roster-old', detail: '' }];
  assert.deepEqual(rankCandidates('ros', all).map((c) => c.name), ['roster-old', 'team-roster']);
  assert.deepEqual(rankCandidates('', all).map((c) => c.name), ['glossary', 'roster-old', 'team-roster']);
  assert.equal(rankCandidates('r', all, 1).length, 1);
});

const P = (code: string, severity: 'ERROR' | 'WARNING', path: string, line: number | null = null): Problem =>
  ({ code, severity, path, message: '', line, column: line ? 3 : null, fix: null });

test('problems filter by code, severity and scope', () => {
  const ps = [P('broken-link', 'ERROR', 'memory/on-call/a.md', 4), P('memory-off', 'WARNING', 'memory/old-bot'), P('broken-link', 'ERROR', 'memory/shared/x.md', 1)];
  assert.equal(filterProblems(ps, {}).length, 3);
  assert.equal(filterProblems(ps, { code: 'broken-link' }).length, 2);
  assert.equal(filterProblems(ps, { severity: 'WARNING' }).length, 1);
  assert.deepEqual(filterProblems(ps, { scope: 'old-bot' }).map((p) => p.code), ['memory-off']);
  assert.deepEqual(filterProblems(ps, { scope: 'shared', code: 'broken-link' }).map((p) => p.path), ['memory/shared/x.md']);
});

test('paths and ids map to notes', () => {
  assert.equal(scopeOfPath('memory/on-call/a.md'), 'on-call');
  assert.equal(scopeOfPath('memory/old-bot'), 'old-bot');
  assert.equal(scopeOfPath('agents/x.md'), null);
  assert.deepEqual(noteOfPath('memory/shared/x.md'), { scope: 'shared', file: 'x.md' });
  assert.equal(noteOfPath('memory/old-bot'), null);
  assert.equal(noteOfPath('memory/a/b/c.md'), null);
  assert.deepEqual(noteOfId('memory:shared/glossary'), { scope: 'shared', file: 'glossary.md' });
  assert.equal(noteOfId('agent:x'), null);
  assert.equal(problemPlace(P('broken-link', 'ERROR', 'memory/a/b.md', 4)), 'memory/a/b.md:4:3');
  assert.equal(problemPlace(P('memory-off', 'WARNING', 'memory/old')), 'memory/old');
});

test('routes round-trip through the hash', () => {
  const routes = [
    { view: 'memory' as const }, { view: 'memory' as const, scope: 'on-call' },
    { view: 'memory' as const, scope: 'shared', file: 'a b.md', line: 12 },
    { view: 'graph' as const }, { view: 'graph' as const, node: 'memory:shared/glossary' }, { view: 'problems' as const },
  ];
  for (const r of routes) {
    const back = parseRoute(routeHash(r));
    assert.deepEqual(Object.fromEntries(Object.entries(back).filter(([, v]) => v !== undefined)), r);
  }
  assert.equal(parseRoute('').view, 'memory');
  assert.deepEqual(parseRoute('#/memory/x/y.md?line=abc'), { view: 'memory', scope: 'x', file: 'y.md', line: undefined });
});

test('diffHunks keeps context around changes and folds the rest', () => {
  const before = Array.from({ length: 20 }, (_, i) => `l${i}`).join('\n');
  const after = before.replace('l10', 'L10');
  const rows = diffHunks(diffLines(before, after), 2);
  assert.deepEqual(rows.map((r) => (r.op === '…' ? `…${r.skipped}` : `${r.op}${r.text}`)),
    ['…8', ' l8', ' l9', '-l10', '+L10', ' l11', ' l12', '…7']);
});

test('search snippets: **marked** words become marked parts, everything else stays text', () => {
  assert.deepEqual(snippetParts('the **glossary** of **Brinewater** terms'), [
    { text: 'the ', mark: false }, { text: 'glossary', mark: true }, { text: ' of ', mark: false },
    { text: 'Brinewater', mark: true }, { text: ' terms', mark: false },
  ]);
  assert.deepEqual(snippetParts('**a****b**'), [{ text: 'ab', mark: true }]);
  assert.deepEqual(snippetParts('no marks'), [{ text: 'no marks', mark: false }]);
  assert.deepEqual(snippetParts(''), []);
  // An unpaired or empty pair of ** is literal text, and HTML is just characters.
  assert.deepEqual(snippetParts('a ** b'), [{ text: 'a ** b', mark: false }]);
  assert.deepEqual(snippetParts('x **** y'), [{ text: 'x **** y', mark: false }]);
  assert.deepEqual(snippetParts('**<img src=x onerror=alert(1)>** &amp;'), [
    { text: '<img src=x onerror=alert(1)>', mark: true }, { text: ' &amp;', mark: false },
  ]);
  // With the matched terms, the note's own **bold** is not taken for a match.
  assert.deepEqual(snippetParts('**Why:** **Retries** fail', ['retries']), [
    { text: '**Why:** ', mark: false }, { text: 'Retries', mark: true }, { text: ' fail', mark: false },
  ]);
});

test('historyDiff: a diff per write, from empty for a create, to empty for a delete', () => {
  const edit = historyDiff({ command: 'str_replace', before: 'h1', after: 'h2', beforeText: 'a\nb', afterText: 'a\nc' });
  assert.equal(edit.kind, 'diff');
  assert.deepEqual(edit.kind === 'diff' && edit.lines.map((l) => `${l.op}${l.text}`), [' a', '-b', '+c']);
  const created = historyDiff({ command: 'create', before: null, after: 'h', beforeText: null, afterText: 'x' });
  assert.deepEqual(created.kind === 'diff' && created.lines.map((l) => l.op), ['-', '+']);
  const deleted = historyDiff({ command: 'delete', before: 'h', after: null, beforeText: 'x', afterText: null });
  assert.deepEqual(deleted.kind === 'diff' && deleted.lines.map((l) => `${l.op}${l.text}`), ['-x', '+']);
  assert.deepEqual(historyDiff({ command: 'rename', before: 'h', after: 'h', beforeText: 'x', afterText: 'x' }), { kind: 'same' });
  const lost = historyDiff({ command: 'put', before: 'h1', after: 'h2', beforeText: null, afterText: 'y' });
  assert.equal(lost.kind, 'missing');
  assert.match(lost.kind === 'missing' ? lost.message : '', /^The version before of this write was not kept/);
});

test('time-travel routes: the Changes window, a note as of a moment or with its history, the graph as of', () => {
  const routes = [
    { view: 'changes' as const }, { view: 'changes' as const, since: '24h' },
    { view: 'changes' as const, since: '2026-12-01T00:00:00Z', until: '2026-12-02T00:00:00Z', agent: 'on-call' },
    { view: 'memory' as const, scope: 'shared', file: 'a.md', history: true },
    { view: 'memory' as const, scope: 'shared', file: 'a.md', asOf: '2026-12-01T09:00:00Z' },
    { view: 'graph' as const, asOf: '2026-12-01T09:00:00Z' }, { view: 'graph' as const, node: 'memory:shared/a', asOf: '7d' },
  ];
  for (const r of routes) {
    const back = parseRoute(routeHash(r));
    assert.deepEqual(Object.fromEntries(Object.entries(back).filter(([, v]) => v !== undefined)), r);
  }
  assert.equal(routeHash({ view: 'changes', since: '2026-12-01T00:00:00Z', agent: 'a b' }), '#/changes?since=2026-12-01T00%3A00%3A00Z&agent=a+b');
  // A scope has no history or moment of its own: only a note does.
  assert.equal(routeHash({ view: 'memory', scope: 'shared', history: true, asOf: '7d' }), '#/memory/shared');
  assert.deepEqual(parseRoute('#/memory/shared?history=1&asOf=7d'), { view: 'memory', scope: 'shared', file: undefined, line: undefined });
  assert.deepEqual(parseRoute('#/memory/shared/a.md?history=0'), { view: 'memory', scope: 'shared', file: 'a.md', line: undefined });
});
