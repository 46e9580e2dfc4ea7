// The graph view's details panel: a node's name, place, problems, links and backlinks, with
// buttons that select a linked node, expand this one or focus on it.
import { gql } from '../api';
import { clear, h } from '../dom';
import { noteOfId, problemPlace, routeHash, type Problem } from '../logic';
import * as ops from '../ops';

export type LinkInfo = { text: string; line: number; column: number; status: string; targetId: string; source: { id: string; path: string }; target: { __typename: string; id?: string } };
export type Details = { __typename: string; id: string; name?: string; scope?: string; path?: string | null; agentPath?: string | null; entityPath?: string | null; description?: string; type?: string | null; size?: number; age?: number;
  title?: string; memoryEnabled?: boolean; memoryOff?: boolean; target?: string;
  links?: LinkInfo[]; backlinks?: LinkInfo[]; wantedBy?: LinkInfo[]; problems?: Problem[];
  linkCount?: number; backlinkCount?: number; wantedByCount?: number };

/** Shows node `id` in `panel` (unless another was selected meanwhile). */
export async function showDetails(panel: HTMLElement, id: string, selected: () => string | null,
act: { select(id: string): void; expand(id: string): void }): Promise<void> {
  let d: Details | null;
  try {
    d = (await gql<{ node: Details | null }>(ops.NODE_DETAILS, { id })).node;
  } catch (e) {
    clear(panel, h('p', { class: 'error' }, `Could not load ${id}: ${(e as Error).message}`));
    return;
  }
  if (id !== selected()) return;
  if (!d) { clear(panel, h('p', { class: 'muted' }, `${id} no longer exists.`)); return; }
  const note = noteOfId(d.id);
  const linkItem = (l: LinkInfo, other: string) => h('li', { class: `st-${l.status.toLowerCase()}` },
    h('button', { type: 'button', class: 'link', onclick: () => act.select(other), 'aria-label': `Select ${labelOfId(other)}` }, labelOfId(other)),
    ' ', h('code', {}, l.text), l.status !== 'RESOLVED' ? h('span', { class: 'badge' }, l.status.toLowerCase().replace('_', ' ')) : null);
  clear(panel,
    h('h2', {}, d.name ?? d.target ?? d.id),
    h('p', { class: 'muted' }, `${d.__typename}${d.scope ? ` · ${d.scope}` : ''}${d.type ? ` · ${d.type.toLowerCase()}` : ''}${d.memoryOff ? ' · memory off' : ''}`),
    d.description || d.title ? h('p', {}, d.description ?? d.title) : null,
    (d.path ?? d.agentPath ?? d.entityPath) ? h('p', {}, h('code', {}, d.path ?? d.agentPath ?? d.entityPath)) : null,
    h('div', { class: 'buttons' },
      note ? h('a', { class: 'button', href: routeHash({ view: 'memory', scope: note.scope, file: note.file }) }, 'Open in editor') : null,
      h('button', { type: 'button', onclick: () => act.expand(d!.id) }, 'Expand'),
      h('a', { class: 'button', href: routeHash({ view: 'graph', node: d.id }) }, 'Focus')),
    d.problems?.length ? [h('h3', {}, 'Problems'), h('ul', { class: 'problem-list' }, d.problems.map((p) => h('li', { class: p.severity.toLowerCase() }, `${problemPlace(p)} ${p.code}: ${p.message}`)))] : null,
    linkList('Links', d.links, d.linkCount, (l) => linkItem(l, l.targetId)),
    linkList('Wanted by', d.wantedBy, d.wantedByCount, (l) => linkItem(l, l.source.id)),
    linkList('Backlinks', d.backlinks, d.backlinkCount, (l) => linkItem(l, l.source.id)));
}

/** A list of links under its heading; the API pages them (the first page here), so a list
 * cut short says how many there are in all. */
function linkList(title: string, links: LinkInfo[] | undefined, total: number | undefined,
  item: (l: LinkInfo) => HTMLElement): HTMLElement[] | null {
  if (!links) return null;
  const all = total ?? links.length;
  const shown = all > links.length ? `${links.length} of ${all}` : `${links.length}`;
  return [h('h3', {}, `${title} (${shown})`), h('ul', { class: 'links' }, links.map(item)),
    ...(all > links.length ? [h('p', { class: 'muted' }, `The first ${links.length} are shown; the GraphQL API pages the rest (first/after).`)] : [])];
}

export function labelOfId(id: string): string {
  const rest = id.slice(id.indexOf(':') + 1);
  return rest.includes('/') && id.startsWith('memory:') ? rest : rest;
}
