// The Changes page (#/changes): what changed in memory between two moments, from its
// history (GraphQL `changes`, the JSON of `brain diff`), per scope, each note with its
// origin, who changed it, what the change did to links and problems, and the ways to its
// page, its history and the note as it was. The window and the writer are in the route, so a
// view of Tuesday's changes is a link one can send. Reading the diff is time/group.ts.
import { ApiError, gql } from './api';
import { clear, h } from './dom';
import type { ChangeEvent } from './live';
import { noteOfPath, routeHash, type Route } from './logic';
import * as ops from './ops';
import { countsLabel, groupChanges, isEmpty, KIND_LABEL, originLabel, whoLabel, type ChangeGroup, type NoteRow } from './time/group';
import { checkWindow, DEFAULT_PRESET, formatMoment, inputToIso, momentOf, msToInput, PRESETS, windowLabel } from './time/moments';
import type { ChangeSet } from './time/types';
import type { View } from './view';

type ChangesRoute = Route & { view: 'changes' };
type ScopeRow = { scope: string; agent: string | null };

const CUSTOM = 'custom';

export class ChangesView implements View {
  readonly el = h('div', { class: 'changes-view' });
  private readonly error = h('p', { class: 'error', role: 'alert' });
  private readonly results = h('div', { class: 'change-results', 'aria-live': 'polite' });
  private readonly since = h('input', { type: 'datetime-local', id: 'changes-since', step: 60 });
  private readonly until = h('input', { type: 'datetime-local', id: 'changes-until', step: 60 });
  private readonly custom = h('div', { class: 'custom-window', hidden: true });
  private readonly agent = h('select', { id: 'changes-agent' });
  private readonly presets = h('div', { class: 'segmented', role: 'radiogroup', 'aria-label': 'Window' });
  private route: ChangesRoute = { view: 'changes' };
  private agents: string[] | null = null;
  /** When the history begins (its first record), once asked; null when it says none. */
  private start: Promise<string | null> | null = null;
  private asked = 0;
  private reload: ReturnType<typeof setTimeout> | undefined;

  constructor() {
    const choices = [...PRESETS.map((p) => ({ id: p.id, label: p.short, title: p.label })), { id: CUSTOM, label: 'Custom…', title: 'Pick the start and end (UTC)' }];
    for (const c of choices) {
      const id = `changes-window-${c.id}`;
      this.presets.append(h('span', { class: 'choice' },
        h('input', { type: 'radio', name: 'changes-window', id, value: c.id, onchange: () => this.pick(c.id) }),
        h('label', { for: id, title: c.title }, c.label)));
    }
    this.custom.append(
      h('label', { for: 'changes-since' }, 'Since (UTC)'), this.since,
      h('label', { for: 'changes-until' }, 'Until (UTC)'), this.until,
      h('button', { type: 'submit', class: 'primary' }, 'Show'),
      h('span', { class: 'muted' }, 'Leave “until” empty for now.'));
    this.agent.addEventListener('change', () => this.go({ agent: this.agent.value || undefined }));
    const form = h('form', { class: 'change-window', 'aria-label': 'Which changes', onsubmit: (e: Event) => { e.preventDefault(); this.applyCustom(); } },
      this.presets, this.custom,
      h('span', { class: 'spacer' }),
      h('label', { for: 'changes-agent' }, 'Written by'), this.agent);
    this.el.append(
      h('h1', {}, 'Changes'),
      h('p', { class: 'muted intro' }, 'What changed in memory between two moments, from brain’s history: every note added, removed or changed, through what and by whom, and the links and problems each change made or mended.'),
      form, this.error, this.results);
  }

  async show(route: Route): Promise<void> {
    if (route.view !== 'changes') return;
    this.route = route;
    const since = route.since ?? DEFAULT_PRESET;
    const preset = !route.until && PRESETS.some((p) => p.id === since) ? since : CUSTOM;
    for (const input of this.presets.querySelectorAll('input')) input.checked = input.value === preset;
    this.custom.hidden = preset !== CUSTOM;
    if (preset === CUSTOM) {
      const now = Date.now();
      const start = momentOf(since, now);
      const end = route.until ? momentOf(route.until, now) : null;
      this.since.value = start === null ? '' : msToInput(start);
      this.until.value = end === null ? '' : msToInput(end);
    }
    void this.loadAgents();
    await this.load(since, route.until, route.agent);
  }

  changed(events: ChangeEvent[]): void {
    // A window that ends now grows with every write: asked again (once a burst settles).
    if (!this.el.isConnected || this.route.until) return;
    if (!events.some((e) => e.id === '*' || e.id.startsWith('memory:'))) return;
    clearTimeout(this.reload);
    this.reload = setTimeout(() => void this.load(this.route.since ?? DEFAULT_PRESET, undefined, this.route.agent).catch(() => {}), 1000);
  }

  private go(over: Partial<ChangesRoute>): void {
    location.hash = routeHash({ ...this.route, ...over });
  }

  private pick(id: string): void {
    if (id !== CUSTOM) { this.go({ since: id, until: undefined }); return; }
    this.custom.hidden = false;
    if (!this.since.value) this.since.value = msToInput(Date.now() - 7 * 86_400_000);
    this.since.focus();
  }

  private applyCustom(): void {
    const since = inputToIso(this.since.value);
    const until = this.until.value ? inputToIso(this.until.value) : undefined;
    if (!since) { this.error.textContent = 'Pick the start of the window (date and time, UTC).'; this.since.focus(); return; }
    if (until === null) { this.error.textContent = 'The end of the window is not a full date and time: complete it, or clear it for now.'; this.until.focus(); return; }
    const check = checkWindow(since, until, Date.now());
    if (!check.ok) { this.error.textContent = check.message; return; }
    this.go({ since, until });
  }

  private async loadAgents(): Promise<void> {
    if (!this.agents) {
      try {
        const agents = new Set<string>();
        for (let after: string | null = null; ;) {
          const page: ScopeRow[] = (await gql<{ memoryScopes: ScopeRow[] }>(ops.MEMORY_SCOPES, { after })).memoryScopes;
          for (const s of page) if (s.agent) agents.add(s.agent);
          if (page.length < ops.SCOPES_PAGE) break;
          after = page[page.length - 1].scope;
        }
        this.agents = [...agents].sort();
      } catch {
        this.agents = [];  // the filter then offers what the route names; the diff still shows
      }
    }
    const chosen = this.route.agent;
    const names = chosen && !this.agents.includes(chosen) ? [...this.agents, chosen] : this.agents;
    clear(this.agent, h('option', { value: '' }, 'Anyone'), names.map((a) => h('option', { value: a, selected: a === chosen }, `agent ${a}`)));
    this.agent.value = chosen ?? '';
  }

  private async load(since: string, until: string | undefined, agent: string | undefined): Promise<void> {
    const run = ++this.asked;
    const check = checkWindow(since, until, Date.now());
    if (!check.ok) { this.error.textContent = check.message; clear(this.results); return; }
    this.error.textContent = '';
    this.results.setAttribute('aria-busy', 'true');
    if (!this.results.childElementCount) clear(this.results, h('p', { class: 'empty' }, 'Reading the history…'));
    let found: ChangeSet;
    let start: string | null;
    try {
      [found, start] = await Promise.all([
        gql<{ changes: ChangeSet }>(ops.CHANGES, { since, until: until ?? null, agent: agent ?? null }).then((d) => d.changes),
        this.historyStart()]);
    } catch (e) {
      if (run !== this.asked) return;
      this.results.removeAttribute('aria-busy');
      if (!(e instanceof ApiError)) throw e;
      this.error.textContent = `The changes could not be read: ${e.message}`;
      clear(this.results);
      return;
    }
    if (run !== this.asked) return;
    this.results.removeAttribute('aria-busy');
    this.render(found, since, until, agent, start);
  }

  private historyStart(): Promise<string | null> {
    this.start ??= gql<{ memoryHistory: { records: { at: string }[] } }>(ops.HISTORY_START)
      .then((d) => d.memoryHistory.records[0]?.at ?? null, () => null);
    return this.start;
  }

  private render(c: ChangeSet, since: string, until: string | undefined, agent: string | undefined, start: string | null): void {
    const span = `${formatMoment(c.since)} → ${formatMoment(c.until)}`;
    const who = agent ? ` written by agent ${agent}` : '';
    // A window reaching back before the history began: what changed before it is not known.
    const early = start && Date.parse(c.since) < Date.parse(start) ? h('p', { class: 'notice', role: 'note', 'aria-label': 'History start' },
      `brain’s history begins at ${formatMoment(start)}: changes before it were not recorded, so this list starts there.`) : null;
    if (isEmpty(c)) {
      clear(this.results, h('p', { class: 'window-span' }, span), early,
        h('div', { class: 'empty-state' },
          h('h2', {}, 'Nothing changed'),
          h('p', {}, `No note was added, removed or changed${who} in ${windowLabel(since, until)}.`),
          h('p', { class: 'muted' }, agent ? 'Try “Anyone”, or a longer window.' : 'Try a longer window. Changes made before brain kept a history are not in it.')));
      return;
    }
    const groups = groupChanges(c);
    const total = (k: keyof ChangeGroup['counts']) => groups.reduce((n, g) => n + g.counts[k], 0);
    const card = (value: number, label: string, tone: string) => h('div', { class: `card ${value ? tone : ''}` }, h('span', { class: 'value' }, String(value)), h('span', { class: 'label' }, label));
    clear(this.results,
      h('p', { class: 'window-span' }, span, who ? h('span', { class: 'muted' }, ` ·${who}`) : null,
        h('a', { class: 'graph-then', href: routeHash({ view: 'graph', asOf: c.since }) }, 'The graph as it was at the start, what changed coloured')),
      h('div', { class: 'counts', role: 'group', 'aria-label': 'Totals' },
        card(total('added'), 'notes added', 'ok'), card(total('removed'), 'notes removed', 'bad'), card(total('changed'), 'notes changed', 'warn'),
        card(total('broken'), 'links broken', 'bad'), card(total('fixed'), 'links fixed', 'ok'),
        card(total('newProblems'), 'new problems', 'bad'), card(total('goneProblems'), 'problems gone', 'ok')),
      early,
      c.notKept.length ? h('p', { class: 'notice', role: 'note', 'aria-label': 'Versions not kept' },
        `${c.notKept.length} ${c.notKept.length === 1 ? 'version' : 'versions'} of these notes ${c.notKept.length === 1 ? 'is' : 'are'} no longer in the history `,
        '(past its retention, over its size cap, or changed outside brain before it saw them), so what ',
        c.notKept.length === 1 ? 'that change' : 'those changes', ' did to links and problems is not known. They are marked “not kept” below.') : null,
      groups.map((g) => this.group(g, c.since)));
  }

  private group(g: ChangeGroup, since: string): HTMLElement {
    const id = `changes-${g.scope ?? 'other'}`;
    return h('section', { class: 'change-group', 'aria-labelledby': id },
      h('h2', { id }, g.title, h('span', { class: 'muted' }, ` · ${countsLabel(g.counts)}`)),
      h('table', { class: 'change-table' },
        h('thead', {}, h('tr', {}, ['Change', 'Note', 'Through', 'By', 'What it did', ''].map((c) => h('th', { scope: 'col' }, c)))),
        h('tbody', {}, g.rows.map((r) => this.row(r, since)))));
  }

  private row(r: NoteRow, since: string): HTMLElement {
    const note = noteOfPath(r.path);
    const page = note && r.kind !== 'removed' ? routeHash({ view: 'memory', ...note }) : null;
    const effects = [
      ...r.broken.map((l) => h('li', { class: 'bad' }, 'broke ', h('code', {}, `[[${l.target}]]`), ` (line ${l.line})`)),
      ...r.fixed.map((l) => h('li', { class: 'ok' }, 'fixed ', h('code', {}, `[[${l.target}]]`), ` (line ${l.line})`)),
      ...r.newProblems.map((p) => h('li', { class: 'bad' }, 'new problem ', h('code', {}, p.code), `: ${p.message}`)),
      ...r.goneProblems.map((p) => h('li', { class: 'ok' }, 'problem gone ', h('code', {}, p.code), `: ${p.message}`)),
      ...r.notKept.map((side) => h('li', { class: 'muted' }, `the version ${side} the change is not kept`)),
    ];
    const who = whoLabel(r.by);
    return h('tr', { class: `k-${r.kind}` },
      h('td', {}, h('span', { class: `kind k-${r.kind}` }, KIND_LABEL[r.kind])),
      h('td', { class: 'note' }, page ? h('a', { href: page }, r.path) : h('span', { title: r.kind === 'removed' ? 'Removed: see its history' : undefined }, r.path)),
      h('td', {}, r.kind === 'linked' ? h('span', { class: 'muted', title: 'Not changed in this window: a note added, removed or renamed in it changed what its links point to' }, '—') : h('span', { class: `origin o-${r.origin}` }, originLabel(r.origin))),
      h('td', {}, who ?? h('span', { class: 'muted' }, '—')),
      h('td', {}, effects.length ? h('ul', { class: 'effects' }, effects) : h('span', { class: 'muted' }, '—')),
      h('td', { class: 'actions' }, note ? [
        h('a', { href: routeHash({ view: 'memory', ...note, history: true }), 'aria-label': `History of ${r.path}` }, 'History'),
        r.kind !== 'added' ? h('a', { href: routeHash({ view: 'memory', ...note, asOf: since }), 'aria-label': `${r.path} as it was at ${formatMoment(since)}` }, 'As it was') : null,
      ] : null));
  }
}
