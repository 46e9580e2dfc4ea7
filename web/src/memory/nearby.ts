// A note's unlinked mentions and related notes (Memory.unlinkedMentions, Memory.related):
// shown under the editor of the memory view. A mention shows the link that would fix it,
// and its "Link" button writes exactly that: the str_replace the server computed (the
// mention, or the lines around it that make it unique), applied to the note as it was
// opened and saved as Save saves (memoryWrite with the note's hash: the history keeps it,
// and a note changed since is refused, never overwritten). Nothing changes on its own.
import { gql } from '../api';
import { clear, h } from '../dom';
import { routeHash } from '../logic';
import * as ops from '../ops';

type Mention = {
  line: number; column: number; text: string; targetId: string | null; candidates: string[];
  replacement: string | null; oldStr: string | null; newStr: string | null;
};
type Related = { score: number; terms: string[]; memory: { path: string; scope: string; name: string } };
/** Applies one str_replace to the open note and saves it; true when it was written. */
export type LinkMention = (oldStr: string, newStr: string) => Promise<boolean>;

export function nearbySection(path: string, goTo: (line: number) => void, link?: LinkMention): HTMLElement {
  const mentions = h('ul', { class: 'mention-list' }, h('li', { class: 'muted' }, 'Looking…'));
  const related = h('ul', { class: 'related-list' }, h('li', { class: 'muted' }, 'Looking…'));
  const section = h('section', { class: 'nearby' },
    h('section', { 'aria-label': 'Unlinked mentions' }, h('h2', {}, 'Mentions'), mentions),
    h('section', { 'aria-label': 'Related notes' }, h('h2', {}, 'Related'), related));
  const linkButton = (m: Mention): HTMLElement | null => {
    if (!link || m.oldStr === null || m.newStr === null) return null;
    const { oldStr, newStr } = m;
    const button = h('button', { type: 'button', 'aria-label': `Link ${m.text} on line ${m.line}, column ${m.column}` }, 'Link');
    button.onclick = async () => {
      button.disabled = true;
      if (await link(oldStr, newStr)) load();  // the mention is a link now: it leaves the list
      else button.disabled = false;
    };
    return button;
  };
  const load = (): void => {
    gql<{ memory: { unlinkedMentions: Mention[]; related: Related[] } | null }>(ops.NOTE_NEARBY, { path }).then((d) => {
      const found = d.memory;
      clear(mentions, found?.unlinkedMentions.length ? found.unlinkedMentions.map((m) => h('li', {},
        h('button', { type: 'button', class: 'link', onclick: () => goTo(m.line) }, `line ${m.line}:${m.column}`), ' ',
        h('q', {}, m.text), ' ',
        m.replacement ? h('span', {}, '→ link it: ', h('code', {}, m.replacement), ' ', linkButton(m))
          : h('span', { class: 'muted' }, `ambiguous: ${m.candidates.join(', ')}`))) :
        h('li', { class: 'muted' }, 'No unlinked mentions.'));
      clear(related, found?.related.length ? found.related.map((r) => h('li', {},
        h('a', { href: routeHash({ view: 'memory', scope: r.memory.scope, file: `${r.memory.name}.md` }) }, r.memory.path), ' ',
        h('span', { class: 'muted' }, `${r.score.toFixed(4)}${r.terms.length ? ' · ' + r.terms.join(', ') : ''}`))) :
        h('li', { class: 'muted' }, 'No related notes.'));
    }, (e: unknown) => {
      clear(mentions, h('li', { class: 'muted' }, `Could not load: ${String(e)}`));
      clear(related);
    });
  };
  load();
  return section;
}
