// The graph at a moment beside the graph now, as one drawing: every node and link of the
// moment, and those added since, each marked with what happened to it since: `added` (not
// there then), `removed` (there then, gone now), `changed` (a note whose content changed),
// or nothing. Links are the same link when source, target and status are; a link whose
// status changed (a broken link fixed) is one removed and one added. The slider's steps
// (one per recorded change) are here too. Pure: test/timediff.test.ts.
import { STATUS_OF, type Columns, type Neighborhood } from './build';
import type { ChangeKind, ChangeSet } from '../time/types';
import { justBefore } from '../time/asof';
import { formatMoment } from '../time/moments';

export type TimeDiff = {
  nodes: Map<string, ChangeKind>;
  edges: Map<string, ChangeKind>;
  counts: Record<ChangeKind, number> & { linksAdded: number; linksRemoved: number };
};

const statusOf = (s: string | null | undefined): string => (s == null ? 'REMEMBERS' : STATUS_OF[s] ?? s.toUpperCase());

/** A link's identity across the two graphs. `status` as either answer writes it. */
export function edgeKey(source: string, target: string, status: string | null | undefined): string {
  return `${source}\u0000${target}\u0000${statusOf(status)}`;
}

/** The memory node of a workspace path (`memory/shared/a.md` -> `memory:shared/a`), or null. */
export function memoryIdOfPath(path: string): string | null {
  const m = /^memory\/([^/]+)\/(.+)\.md$/.exec(path);
  return m ? `memory:${m[1]}/${m[2]}` : null;
}

export type NoteChanges = { added: Set<string>; removed: Set<string>; changed: Set<string> };

/** The notes added, removed and changed since the moment, by node id (the Changes answer). */
export function noteChanges(c: ChangeSet | null): NoteChanges {
  const ids = (list: { path: string }[] | undefined) =>
    new Set((list ?? []).map((n) => memoryIdOfPath(n.path)).filter((id): id is string => id !== null));
  return { added: ids(c?.notes.added), removed: ids(c?.notes.removed), changed: ids(c?.notes.changed) };
}

function noteKind(notes: NoteChanges, id: string): ChangeKind | null {
  return notes.removed.has(id) ? 'removed' : notes.added.has(id) ? 'added' : notes.changed.has(id) ? 'changed' : null;
}

function emptyDiff(): TimeDiff {
  return { nodes: new Map(), edges: new Map(), counts: { added: 0, removed: 0, changed: 0, linksAdded: 0, linksRemoved: 0 } };
}

function mark(d: TimeDiff, id: string, kind: ChangeKind): void {
  d.nodes.set(id, kind);
  d.counts[kind]++;
}

function markEdge(d: TimeDiff, key: string, kind: 'added' | 'removed'): void {
  d.edges.set(key, kind);
  if (kind === 'added') d.counts.linksAdded++; else d.counts.linksRemoved++;
}

/** The whole workspace then and now as one set of columns (then's first), and what changed. */
export function mergeOverviews(then: Columns, now: Columns, notes: NoteChanges): { columns: Columns; diff: TimeDiff } {
  const diff = emptyDiff();
  const c: Columns = {
    id: [...then.id], kind: [...then.kind], label: [...then.label], scope: [...then.scope], type: [...then.type],
    problems: [...then.problems], memoryOff: [...then.memoryOff], degree: [...then.degree],
    source: [...then.source], target: [...then.target], status: [...then.status],
  };
  const index = new Map(then.id.map((id, i) => [id, i]));
  const inNow = new Set(now.id);
  for (const id of then.id) {
    if (!inNow.has(id)) mark(diff, id, 'removed');
    else if (notes.changed.has(id)) mark(diff, id, 'changed');
  }
  now.id.forEach((id, i) => {
    if (index.has(id)) return;
    index.set(id, c.id.length);
    c.id.push(id); c.kind.push(now.kind[i]); c.label.push(now.label[i]); c.scope.push(now.scope[i]); c.type.push(now.type[i]);
    c.problems.push(now.problems[i]); c.memoryOff.push(now.memoryOff[i]); c.degree.push(now.degree[i]);
    mark(diff, id, 'added');
  });
  const thenKeys = new Set(then.source.map((s, k) => edgeKey(then.id[s], then.id[then.target[k]], then.status[k])));
  const nowKeys = new Set<string>();
  now.source.forEach((s, k) => {
    const source = now.id[s];
    const target = now.id[now.target[k]];
    const key = edgeKey(source, target, now.status[k]);
    nowKeys.add(key);
    if (thenKeys.has(key)) return;
    c.source.push(index.get(source)!); c.target.push(index.get(target)!); c.status.push(now.status[k]);
    markEdge(diff, key, 'added');
  });
  for (const key of thenKeys) if (!nowKeys.has(key)) markEdge(diff, key, 'removed');
  return { columns: c, diff };
}

/**
 * A node's neighbourhood then and now as one, and what changed. Either may be null: the
 * node did not exist then, or does not now. A neighbourhood does not say whether a node it
 * no longer reaches still exists, so notes are marked from the Changes answer (`notes`);
 * unresolved targets by whether they are there (a fixed link's target is gone), and links
 * by whether they are.
 */
export function mergeNeighborhoods(then: Neighborhood | null, now: Neighborhood | null, notes: NoteChanges): { nb: Neighborhood | null; diff: TimeDiff } {
  const diff = emptyDiff();
  if (!then && !now) return { nb: null, diff };
  const base: Neighborhood = then ?? { truncated: false, nodes: [], edges: [] };
  const nb: Neighborhood = { truncated: base.truncated || Boolean(now?.truncated), nodes: [...base.nodes], edges: [...base.edges] };
  const thenIds = new Set(base.nodes.map((n) => n.id));
  const nowIds = new Set(now?.nodes.map((n) => n.id) ?? []);
  const unresolved = (id: string) => id.startsWith('unresolved:');
  for (const n of base.nodes) {
    const kind = noteKind(notes, n.id) ?? (now && unresolved(n.id) && !nowIds.has(n.id) ? 'removed' : null);
    if (kind) mark(diff, n.id, kind);
  }
  for (const n of now?.nodes ?? []) {
    if (thenIds.has(n.id)) continue;
    nb.nodes.push(n);
    const kind = noteKind(notes, n.id) ?? (unresolved(n.id) ? 'added' : null);
    if (kind) mark(diff, n.id, kind);
  }
  const key = (e: Neighborhood['edges'][number]) => edgeKey(e.source, e.target, e.type === 'REMEMBERS' ? null : e.link?.status ?? 'RESOLVED');
  const thenKeys = new Set(base.edges.map(key));
  const nowKeys = new Set((now?.edges ?? []).map(key));
  for (const e of now?.edges ?? []) {
    if (thenKeys.has(key(e))) continue;
    nb.edges.push(e);
    markEdge(diff, key(e), 'added');
  }
  if (now) for (const e of base.edges) if (!nowKeys.has(key(e))) markEdge(diff, key(e), 'removed');
  return { nb, diff };
}

export type Step = { moment: string | null; label: string };

type Record_ = { at: string; actor: string; command: string; path: string };

/**
 * The slider's stops, oldest first: just before each recorded change (newest `records`
 * first, as memoryHistory answers), then now (moment null). When `records` is the whole
 * history, nothing before its first record can be shown (brain keeps nothing from before
 * it), so the first stop is just after that record instead. A moment the route names that
 * is no stop is added in its place, so the slider shows where the drawing is.
 */
export function timeSteps(records: Record_[], current: string | null, complete: boolean): Step[] {
  const steps: Step[] = [];
  [...records].reverse().forEach((r, i) => {
    if (i === 0 && complete) {
      steps.push({ moment: r.at, label: `${formatMoment(r.at)}, the history's start (after ${r.command} ${r.path} by ${r.actor})` });
      return;
    }
    const moment = justBefore(r.at);
    if (moment) steps.push({ moment, label: `${formatMoment(moment)}, before ${r.command} ${r.path} by ${r.actor}` });
  });
  steps.push({ moment: null, label: 'now' });
  if (current && !steps.some((s) => s.moment === current)) {
    const at = Date.parse(current);
    const i = steps.findIndex((s) => s.moment === null || Date.parse(s.moment) > at);
    steps.splice(i, 0, { moment: current, label: formatMoment(current) });
  }
  return steps;
}
