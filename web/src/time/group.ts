// The Changes page's reading of a diff: per memory scope (each agent's own notes, then the
// shared ones first, then files outside memory/), each note once with what its change did
// to links and problems, and who or what made it. No DOM here: test/changegroups.test.ts.
import type { ChangeKind, ChangeSet, LinkEntry, NotKept, ProblemEntry } from './types';

/** A row's kind: the note's change, or `linked`: a note the window did not change whose links
 * a note added, removed or renamed in it broke or fixed (the server lists those too). */
export type RowKind = ChangeKind | 'linked';

export type NoteRow = {
  kind: RowKind;
  path: string;
  origin: string;
  by: string;
  broken: LinkEntry[];
  fixed: LinkEntry[];
  newProblems: ProblemEntry[];
  goneProblems: ProblemEntry[];
  /** Sides of this change the history no longer has. */
  notKept: NotKept['side'][];
};

export type ChangeGroup = {
  /** The memory scope (`shared` or an agent's name), or null for files outside memory/. */
  scope: string | null;
  title: string;
  rows: NoteRow[];
  counts: Record<RowKind, number> & { broken: number; fixed: number; newProblems: number; goneProblems: number };
};

const SHARED = 'shared';

export function scopeOf(path: string): string | null {
  const m = /^memory\/([^/]+)\//.exec(path);
  return m ? m[1] : null;
}

export function groupTitle(scope: string | null): string {
  return scope === null ? 'Other files' : scope === SHARED ? 'Shared' : `${scope}'s memory`;
}

/** Groups: shared first, then agents by name, then other files; rows by path. */
export function groupChanges(c: ChangeSet): ChangeGroup[] {
  const rows = new Map<string, NoteRow>();
  const add = (kind: RowKind, e: { path: string; origin: string; by: string }) =>
    rows.set(e.path, { kind, path: e.path, origin: e.origin, by: e.by, broken: [], fixed: [], newProblems: [], goneProblems: [], notKept: [] });
  c.notes.added.forEach((e) => add('added', e));
  c.notes.removed.forEach((e) => add('removed', e));
  c.notes.changed.forEach((e) => add('changed', e));
  // Links, problems and lost versions belong to a note the window changed, or, for links, to a
  // note it did not change whose links another note's coming or going broke or fixed.
  const row = (path: string) => rows.get(path) ?? (add('linked', { path, origin: '', by: '' }), rows.get(path)!);
  c.links.broken.forEach((l) => row(l.source).broken.push(l));
  c.links.fixed.forEach((l) => row(l.source).fixed.push(l));
  c.problems.new.forEach((p) => row(p.path).newProblems.push(p));
  c.problems.gone.forEach((p) => row(p.path).goneProblems.push(p));
  c.notKept.forEach((k) => { const r = row(k.path); if (!r.notKept.includes(k.side)) r.notKept.push(k.side); });
  const groups = new Map<string | null, ChangeGroup>();
  for (const r of [...rows.values()].sort((a, b) => a.path.localeCompare(b.path))) {
    const scope = scopeOf(r.path);
    let g = groups.get(scope);
    if (!g) {
      g = { scope, title: groupTitle(scope), rows: [], counts: { added: 0, removed: 0, changed: 0, linked: 0, broken: 0, fixed: 0, newProblems: 0, goneProblems: 0 } };
      groups.set(scope, g);
    }
    g.rows.push(r);
    g.counts[r.kind]++;
    g.counts.broken += r.broken.length;
    g.counts.fixed += r.fixed.length;
    g.counts.newProblems += r.newProblems.length;
    g.counts.goneProblems += r.goneProblems.length;
  }
  const rank = (s: string | null) => (s === SHARED ? 0 : s === null ? 2 : 1);
  return [...groups.values()].sort((a, b) => rank(a.scope) - rank(b.scope) || (a.scope ?? '').localeCompare(b.scope ?? ''));
}

/** True when the window holds no change at all. */
export function isEmpty(c: ChangeSet): boolean {
  return !c.notes.added.length && !c.notes.removed.length && !c.notes.changed.length &&
    !c.links.broken.length && !c.links.fixed.length && !c.problems.new.length && !c.problems.gone.length && !c.notKept.length;
}

const ORIGINS: Record<string, string> = {
  tool: 'memory tool',
  ui: 'web UI',
  maintain: 'maintain',
  consolidate: 'consolidation',
  external: 'outside brain',
};

/** An origin as a person reads it; an origin this UI does not know shows as it is. */
export function originLabel(origin: string): string {
  return ORIGINS[origin] ?? origin;
}

/** Who made a change: `agent:on-call` -> "agent on-call"; `external` says nothing the origin
 * does not (null). */
export function whoLabel(by: string): string | null {
  if (!by || by === 'external') return null;
  const agent = /^agent:(.+)$/.exec(by);
  return agent ? `agent ${agent[1]}` : by;
}

export const KIND_LABEL: Record<RowKind, string> = { added: 'added', removed: 'removed', changed: 'changed', linked: 'unchanged' };

/** "3 added, 1 changed" for a group's heading (only the kinds it has). */
export function countsLabel(counts: ChangeGroup['counts']): string {
  const parts = [
    counts.added && `${counts.added} added`,
    counts.removed && `${counts.removed} removed`,
    counts.changed && `${counts.changed} changed`,
    counts.linked && `${counts.linked} unchanged with links broken or fixed`,
    counts.broken && `${counts.broken} ${counts.broken === 1 ? 'link' : 'links'} broken`,
    counts.fixed && `${counts.fixed} fixed`,
    counts.newProblems && `${counts.newProblems} new ${counts.newProblems === 1 ? 'problem' : 'problems'}`,
    counts.goneProblems && `${counts.goneProblems} gone`,
  ].filter(Boolean);
  return parts.join(', ');
}
