// Link integrity: linkReport counts, and the problems list with filters; a click opens the
// note at the problem's line.
import { Forbidden, gql } from '../api';
import { clear, h } from '../dom';
import { HealthPanel } from './health';
import type { ChangeEvent } from '../live';
import { filterProblems, noteOfPath, problemPlace, routeHash, scopeOfPath, type Problem, type ProblemFilter, type Route } from '../logic';
import * as ops from '../ops';
import type { View } from '../view';

type Report = { total: number; errors: number; warnings: number; byStatus: { status: string; count: number }[];
  byCode: { code: string; severity: string; count: number }[]; mostWanted: { count: number; target: { target: string } }[] };
type Page = { totalCount: number; pageInfo: { hasNextPage: boolean; endCursor: string | null }; nodes: Problem[] };

const MAX_PAGES = 100;  // 10,000 problems: past that, the counts say how many more there are

export class ProblemsView implements View {
  readonly el = h('div', { class: 'problems-view' });
  private readonly counts = h('section', { class: 'counts', 'aria-label': 'Link report' });
  private readonly health = new HealthPanel();
  private readonly code = h('select', { 'aria-label': 'Code' });
  private readonly severity = h('select', { 'aria-label': 'Severity' }, h('option', { value: '' }, 'all severities'), h('option', { value: 'ERROR' }, 'errors'), h('option', { value: 'WARNING' }, 'warnings'));
  private readonly scope = h('select', { 'aria-label': 'Scope' });
  private readonly tbody = h('tbody');
  private readonly summary = h('p', { role: 'status' });
  private problems: Problem[] = [];
  private total = 0;
  private loaded = false;

  constructor() {
    for (const s of [this.code, this.severity, this.scope]) s.addEventListener('change', () => this.render());
    this.el.append(h('h1', {}, 'Link integrity'), this.counts, this.health.el,
      h('div', { class: 'toolbar', role: 'toolbar', 'aria-label': 'Problem filters' }, this.code, this.severity, this.scope),
      this.summary,
      h('table', { class: 'problems' }, h('caption', { class: 'visually-hidden' }, 'Problems'),
        h('thead', {}, h('tr', {}, ['Where', 'Code', 'Message', 'Fix'].map((c) => h('th', { scope: 'col' }, c)))), this.tbody));
  }

  async show(route: Route): Promise<void> {
    if (route.view !== 'problems') return;
    if (!this.loaded) await this.load();
  }

  changed(events: ChangeEvent[]): void {
    if (events.length && this.loaded) void this.load();
  }

  private async load(): Promise<void> {
    let report: Report;
    const all: Problem[] = [];
    let total = 0;
    void this.health.load();  // open to agents' tokens too, unlike the report below
    try {
      report = (await gql<{ linkReport: Report }>(ops.LINK_REPORT)).linkReport;
      let after: string | null = null;
      for (let i = 0; i < MAX_PAGES; i++) {
        const page: Page = (await gql<{ problems: Page }>(ops.PROBLEMS, { after })).problems;
        all.push(...page.nodes);
        total = page.totalCount;
        if (!page.pageInfo.hasNextPage) break;
        after = page.pageInfo.endCursor;
      }
    } catch (e) {
      clear(this.counts, h('p', { class: 'muted' }, e instanceof Forbidden
        ? 'Link integrity covers every agent’s notes, so it needs an admin token.' : `Could not load: ${(e as Error).message}`));
      return;
    }
    this.loaded = true;
    this.problems = all;
    this.total = total;
    const count = (status: string) => report.byStatus.find((s) => s.status === status)?.count ?? 0;
    const card = (label: string, value: number, cls = '') => h('div', { class: `card ${cls}` }, h('span', { class: 'value' }, String(value)), h('span', { class: 'label' }, label));
    clear(this.counts,
      card('links', report.total), card('resolved', count('RESOLVED'), 'ok'), card('broken', count('BROKEN'), count('BROKEN') ? 'bad' : ''),
      card('ambiguous', count('AMBIGUOUS'), count('AMBIGUOUS') ? 'warn' : ''), card('missing anchor', count('MISSING_ANCHOR'), count('MISSING_ANCHOR') ? 'warn' : ''),
      card('errors', report.errors, report.errors ? 'bad' : 'ok'), card('warnings', report.warnings, report.warnings ? 'warn' : ''),
      report.mostWanted.length ? h('div', { class: 'wanted' }, h('h2', {}, 'Most wanted missing notes'),
        h('ul', {}, report.mostWanted.map((w) => h('li', {}, h('code', {}, w.target.target), ` (${w.count} ${w.count === 1 ? 'link' : 'links'})`)))) : null);
    const keep = (sel: HTMLSelectElement, all: string, values: string[]) => {
      const cur = sel.value;
      clear(sel, h('option', { value: '' }, all), values.map((v) => h('option', { value: v, selected: v === cur }, v)));
    };
    keep(this.code, 'all codes', [...new Set(all.map((p) => p.code))].sort());
    keep(this.scope, 'all scopes', [...new Set(all.map((p) => scopeOfPath(p.path)).filter((s): s is string => Boolean(s)))].sort());
    this.render();
  }

  private render(): void {
    const f: ProblemFilter = { code: this.code.value, severity: this.severity.value, scope: this.scope.value };
    const shown = filterProblems(this.problems, f);
    this.summary.textContent = `${shown.length} of ${this.total} problems${this.total > this.problems.length ? ` (first ${this.problems.length} loaded)` : ''}`;
    clear(this.tbody, shown.length ? shown.map((p) => {
      const note = noteOfPath(p.path);
      const place = problemPlace(p);
      return h('tr', { class: `sev-${p.severity.toLowerCase()}` },
        h('td', {}, note ? h('a', { href: routeHash({ view: 'memory', scope: note.scope, file: note.file, line: p.line ?? undefined }) }, place) : h('code', {}, place)),
        h('td', {}, h('span', { class: `sev ${p.severity.toLowerCase()}` }, p.severity.toLowerCase()), ' ', h('code', {}, p.code)),
        h('td', {}, p.message),
        h('td', { class: 'fix' }, p.fix ?? ''));
    }) : h('tr', {}, h('td', { colspan: 4, class: 'empty' }, this.problems.length ? 'No problem matches these filters.' : 'No problems: every link resolves.')));
  }
}
