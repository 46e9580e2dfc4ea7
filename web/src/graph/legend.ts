// The legend under the drawing: what the colours mean. Colouring by community names the
// largest communities after their best-connected member (and how many they hold); the link
// colours show when problem links are drawn.
import { h, clear } from '../dom';
import { SMALL_COMMUNITY, type CommunityLegend } from './overviewmodel';

/** Entries the legend lists at most; the rest are counted. */
const SHOWN = 10;

export function renderLegend(el: HTMLElement, communities: CommunityLegend[] | null, problemLinks: boolean, note = ''): void {
  const parts: (HTMLElement | string)[] = [];
  if (communities) {
    for (const c of communities.slice(0, SHOWN)) {
      parts.push(h('span', { class: 'sw dot', style: `background:${c.colour}` }), `${c.name} (${c.size}) `);
    }
    const more = communities.length - SHOWN;
    if (note) parts.push(more > 0 ? `${more} more. ${note}` : note);  // a summary's scopes: no small ones
    else parts.push(h('span', { class: 'sw dot', style: `background:${SMALL_COMMUNITY}` }), more > 0 ? `${more} more and the small communities ` : 'small communities ');
  }
  if (problemLinks) {
    parts.push(h('span', { class: 'sw', style: 'background:#e15759' }), 'broken / unresolved ',
      h('span', { class: 'sw', style: 'background:#f28e2b' }), 'ambiguous ',
      h('span', { class: 'sw', style: 'background:#9c27b0' }), 'missing anchor');
  } else if (!communities && !note) {
    parts.push('Problem links are off: tick “problem links” to draw them.');
  }
  clear(el, ...parts);
}
