// The find box of the graph explorer and the memory review: a type-ahead over the GraphQL
// `search` query (keyword + semantic, the caller's token decides which scopes it reaches).
// Snippets come marked `**word**`; they are rendered as text and <mark>, never as HTML.
import { gql } from './api';
import { clear, h } from './dom';
import { snippetParts } from './logic';
import * as ops from './ops';

export type SearchHit = { id: string; path: string; scope: string; name: string; snippet: string; matched: string[]; terms: string[] };
/** Found another way: a name still being typed (`glossa`), an agent or workflow in the drawing. */
export type ExtraHit = { id: string; label: string; detail: string };
type Search = { mode: string; notice: string | null; nodes: SearchHit[] };

let counter = 0;

export class FindBox {
  readonly el: HTMLElement;
  private readonly input: HTMLInputElement;
  private readonly list: HTMLUListElement;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private active = -1;
  private picks: (() => void)[] = [];

  constructor(private readonly opts: {
    label: string; placeholder: string;
    onHit: (hit: SearchHit) => void;
    extra?: (text: string) => Promise<{ hits: ExtraHit[]; pick: (id: string) => void }>;
    onError?: (e: unknown) => void;
  }) {
    const listId = `find-list-${++counter}`;
    this.input = h('input', { type: 'search', role: 'combobox', 'aria-label': opts.label, 'aria-autocomplete': 'list', 'aria-expanded': 'false', 'aria-controls': listId, placeholder: opts.placeholder, autocomplete: 'off' });
    this.list = h('ul', { id: listId, role: 'listbox', class: 'suggestions', hidden: true, 'aria-label': `Results of ${opts.label.toLowerCase()}` });
    this.el = h('div', { class: 'find' }, this.input, this.list);
    this.input.addEventListener('input', () => { clearTimeout(this.timer); this.timer = setTimeout(() => void this.suggest(), 150); });
    this.input.addEventListener('keydown', (e) => this.key(e));
    this.input.addEventListener('blur', () => setTimeout(() => this.hide(), 150));
  }

  private async suggest(): Promise<void> {
    const text = this.input.value.trim();
    if (!text) { this.hide(); return; }
    let found: Search | null = null;
    let failure: string | null = null;
    const extraLoad = this.opts.extra?.(text).catch(() => undefined);
    try {
      found = (await gql<{ search: Search }>(ops.SEARCH, { query: text, first: 12 })).search;
    } catch (e) {
      failure = (e as Error).message;
      this.opts.onError?.(e);
    }
    const extra = await extraLoad;
    if (this.input.value.trim() !== text) return;  // the person typed on meanwhile
    const seen = new Set((found?.nodes ?? []).map((n) => n.id));
    const items: HTMLElement[] = [];
    this.picks = [];
    for (const hit of found?.nodes ?? []) {
      this.picks.push(() => this.opts.onHit(hit));
      items.push(renderHit(hit));
    }
    for (const x of (extra?.hits ?? []).filter((x) => !seen.has(x.id)).slice(0, 8)) {
      this.picks.push(() => extra!.pick(x.id));
      items.push(h('li', {}, h('strong', {}, x.label), ' ', h('span', { class: 'muted' }, x.detail)));
    }
    items.forEach((li, i) => {
      li.setAttribute('role', 'option');
      li.id = `${this.list.id}-${i}`;
      li.setAttribute('aria-selected', i === 0 ? 'true' : 'false');
      li.addEventListener('mousedown', (e) => { e.preventDefault(); this.pick(i); });
    });
    this.active = items.length ? 0 : -1;
    const notes = [
      failure ? h('li', { class: 'error' }, `Search failed: ${failure}`) : null,
      found?.notice ? h('li', { class: 'muted notice' }, found.notice) : null,
      !items.length && !failure ? h('li', { class: 'muted' }, 'Nothing matches.') : null,
    ];
    clear(this.list, items, notes);
    this.list.hidden = false;
    this.input.setAttribute('aria-expanded', 'true');
    if (items.length) this.input.setAttribute('aria-activedescendant', items[0].id);
  }

  private key(e: KeyboardEvent): void {
    const options = [...this.list.querySelectorAll<HTMLElement>('[role=option]')];
    if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      if (!options.length) return;
      e.preventDefault();
      this.active = (this.active + (e.key === 'ArrowDown' ? 1 : -1) + options.length) % options.length;
      options.forEach((o, i) => o.setAttribute('aria-selected', i === this.active ? 'true' : 'false'));
      this.input.setAttribute('aria-activedescendant', options[this.active].id);
      options[this.active].scrollIntoView({ block: 'nearest' });
    } else if (e.key === 'Enter') {
      e.preventDefault();
      if (this.active >= 0) this.pick(this.active);
    } else if (e.key === 'Escape') {
      this.hide();
    }
  }

  private pick(i: number): void {
    this.hide();
    this.picks[i]?.();
  }

  private hide(): void {
    this.list.hidden = true;
    this.input.setAttribute('aria-expanded', 'false');
    this.input.removeAttribute('aria-activedescendant');
  }
}

/** One result: name, scope, the snippet with its matched words marked, and the rankers that found it. */
export function renderHit(hit: SearchHit): HTMLLIElement {
  return h('li', { class: 'hit' },
    h('div', { class: 'hit-head' },
      h('strong', {}, hit.name), ' ', h('span', { class: 'scope-tag' }, hit.scope),
      h('span', { class: 'rankers', 'aria-label': `found by ${hit.matched.join(' and ')}` },
        hit.matched.map((m) => h('span', { class: `ranker r-${m}` }, m)))),
    h('div', { class: 'snippet' }, snippetParts(hit.snippet, hit.terms).map((p) => (p.mark ? h('mark', {}, p.text) : p.text))));
}
