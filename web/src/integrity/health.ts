// Memory health on the Link integrity page: graphql/memory-health.graphql, one query for the
// counts per scope, the hubs, the most wanted missing notes and the notes that need care.
// Agents' tokens may ask it too (they see their own notes and the shared ones).
import { gql } from '../api';
import { clear, h } from '../dom';
import { noteOfPath, routeHash } from '../logic';
import * as ops from '../ops';

type Counts = { scope: string | null; notes: number; links: number; broken: number; ambiguous: number; missingAnchor: number;
  orphans: number; stale: number; withoutDescription: number; withoutType: number };
type NoteRef = { id: string; path?: string };
type Notes = { totalCount: number; pageInfo: { hasNextPage: boolean }; nodes: NoteRef[] };
export type Health = { staleDays: number; total: Counts; scopes: Counts[]; hubs: { links: number; node: NoteRef }[];
  mostWanted: { notes: number; target: { target: string } }[]; orphans: Notes; stale: Notes; withoutDescription: Notes; withoutType: Notes };

const COLUMNS: [keyof Counts, string][] = [['notes', 'Notes'], ['links', 'Links'], ['broken', 'Broken'], ['ambiguous', 'Ambiguous'],
  ['missingAnchor', 'Missing anchor'], ['orphans', 'Orphans'], ['stale', 'Stale'], ['withoutDescription', 'No description'], ['withoutType', 'No type']];

function noteLink(ref: NoteRef): Node {
  const note = ref.path ? noteOfPath(ref.path) : null;
  const label = ref.id.replace(/^[a-z-]+:/, '');
  return note ? h('a', { href: routeHash({ view: 'memory', scope: note.scope, file: note.file }) }, label) : h('code', {}, label);
}

function list(title: string, notes: Notes): Node {
  const more = notes.totalCount - notes.nodes.length;
  return h('div', { class: 'wanted', role: 'group', 'aria-label': title },
    h('h2', {}, `${title} (${notes.totalCount})`),
    notes.nodes.length ? h('ul', {}, notes.nodes.map((n) => h('li', {}, noteLink(n)))) : h('p', { class: 'muted' }, 'none'),
    more > 0 ? h('p', { class: 'muted' }, `and ${more} more`) : null);
}

export class HealthPanel {
  readonly el = h('section', { class: 'health', 'aria-label': 'Memory health' });

  async load(): Promise<void> {
    let health: Health;
    try {
      health = (await gql<{ memoryHealth: Health }>(ops.MEMORY_HEALTH, { first: 10, top: 10 })).memoryHealth;
    } catch (e) {
      clear(this.el, h('p', { class: 'muted' }, `Could not load memory health: ${(e as Error).message}`));
      return;
    }
    const row = (c: Counts, name: string) => h('tr', {}, h('th', { scope: 'row' }, name), COLUMNS.map(([k]) => h('td', {}, String(c[k]))));
    clear(this.el, h('h2', {}, 'Memory health'),
      h('table', { class: 'health-scopes' }, h('caption', { class: 'visually-hidden' }, 'Health per scope'),
        h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'Scope'), COLUMNS.map(([, label]) => h('th', { scope: 'col' }, label)))),
        h('tbody', {}, health.scopes.map((c) => row(c, c.scope ?? '')), row(health.total, 'all'))),
      h('div', { class: 'counts' },
        h('div', { class: 'wanted', role: 'group', 'aria-label': 'Hubs' }, h('h2', {}, 'Hubs'),
          health.hubs.length ? h('ol', {}, health.hubs.map((hub) => h('li', {}, noteLink(hub.node), ` (${hub.links} ${hub.links === 1 ? 'link' : 'links'} in)`)))
            : h('p', { class: 'muted' }, 'none')),
        h('div', { class: 'wanted', role: 'group', 'aria-label': 'Most wanted' }, h('h2', {}, 'Most wanted notes'),
          health.mostWanted.length ? h('ol', {}, health.mostWanted.map((w) => h('li', {}, h('code', {}, w.target.target), ` (${w.notes} ${w.notes === 1 ? 'note' : 'notes'})`)))
            : h('p', { class: 'muted' }, 'none')),
        list('Orphans', health.orphans), list(`Stale (${health.staleDays} days, unlinked)`, health.stale),
        list('Without description', health.withoutDescription), list('Without type', health.withoutType)));
  }
}
