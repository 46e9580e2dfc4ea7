// The Graph view's time slider and what it draws: the graph as it was at a moment (GraphQL
// `asOf` on graphOverview and neighborhood) beside the graph now and the Changes answer since
// that moment, merged into one drawing whose nodes and links carry what happened to them
// since (timediff.ts) and are coloured by it (time/colour.ts). The slider stops just before
// each recorded change (arrow keys step through them) and at now.
import type Graph from 'graphology';
import { gql } from '../api';
import { clear, h } from '../dom';
import { noteOfId, routeHash } from '../logic';
import * as ops from '../ops';
import { formatMoment } from '../time/moments';
import { changeLegend, linkLook, nodeLook } from '../time/colour';
import type { ChangeKind, ChangeSet } from '../time/types';
import type { Neighborhood, Overview } from './build';
import { edgeKey, mergeNeighborhoods, mergeOverviews, noteChanges, timeSteps, type Step, type TimeDiff } from './timediff';

type Recent = { at: string; actor: string; command: string; path: string };

/** The whole workspace at `asOf` and now, as one overview, and what changed since. */
export async function overviewAsOf(asOf: string, edgeBudget: number | null): Promise<{ overview: Overview; diff: TimeDiff }> {
  const [then, now, changes] = await Promise.all([
    gql<{ graphOverview: Overview }>(ops.OVERVIEW_AS_OF, { edgeBudget, asOf }),
    gql<{ graphOverview: Overview }>(ops.OVERVIEW, { edgeBudget }),
    gql<{ changes: ChangeSet }>(ops.CHANGES, { since: asOf, until: null, agent: null }),
  ]);
  const { columns, diff } = mergeOverviews(then.graphOverview.columns, now.graphOverview.columns, noteChanges(changes.changes));
  const o = then.graphOverview;
  return { overview: { truncated: o.truncated || now.graphOverview.truncated, edgeTotal: Math.max(o.edgeTotal, now.graphOverview.edgeTotal), columns }, diff };
}

/** A node's neighbourhood at `asOf` and now, as one, and what changed since. */
export async function neighborhoodAsOf(id: string, depth: number, asOf: string): Promise<{ nb: Neighborhood | null; diff: TimeDiff }> {
  const [then, now, changes] = await Promise.all([
    gql<{ neighborhood: Neighborhood | null }>(ops.NEIGHBORHOOD_AS_OF, { id, depth, asOf }),
    gql<{ neighborhood: Neighborhood | null }>(ops.NEIGHBORHOOD, { id, depth }),
    gql<{ changes: ChangeSet }>(ops.CHANGES, { since: asOf, until: null, agent: null }),
  ]);
  return mergeNeighborhoods(then.neighborhood, now.neighborhood, noteChanges(changes.changes));
}

/** Writes what happened to each node and link since the moment into their `change` attribute. */
export function markChanges(g: Graph, diff: TimeDiff): void {
  g.forEachNode((node, a) => { a.change = diff.nodes.get(node) ?? null; });
  g.forEachEdge((_e, a, source, target) => { a.change = diff.edges.get(edgeKey(source, target, a.status as string | null)) ?? null; });
}

/** Colours the drawing by its `change` attributes (after the usual styling, over it). */
export function paintChanges(g: Graph): void {
  g.forEachNode((_n, a) => Object.assign(a, nodeLook(a.change as ChangeKind | null, Number(a.size))));
  g.forEachEdge((_e, a) => Object.assign(a, linkLook(a.change as ChangeKind | null, Number(a.size))));
}

/** Over the details panel while the drawing is of a moment: the details are of now. */
export function detailsNotice(id: string, asOf: string): HTMLElement {
  const note = noteOfId(id);
  return h('p', { class: 'notice details-asof' }, `These details are of now; the drawing is as of ${formatMoment(asOf)}. `,
    note ? h('a', { href: routeHash({ view: 'memory', ...note, asOf }) }, 'Open this note as it was then') : null);
}

export class TimeBar {
  readonly el = h('div', { class: 'timebar', role: 'group', 'aria-label': 'Time' });
  private readonly range = h('input', { type: 'range', id: 'graph-moment', min: 0, max: 0, step: 1, value: 0 });
  private readonly output = h('output', { for: 'graph-moment', class: 'moment' }, 'now');
  private readonly now = h('button', { type: 'button', disabled: true }, 'Back to now');
  // The history reaches back further than one page: older pages are added on demand.
  private readonly older = h('button', { type: 'button', hidden: true }, 'Older changes');
  private records: Recent[] = [];
  private next: string | null = null;
  private readonly legend = h('div', { class: 'legend time-legend', 'aria-label': 'Changes since the moment', hidden: true });
  private steps: Step[] = [{ moment: null, label: 'now' }];
  private wait: ReturnType<typeof setTimeout> | undefined;

  constructor(private readonly pick: (moment: string | null) => void) {
    this.range.addEventListener('input', () => this.label());
    // Each step is a fetch of two graphs: a run of arrow keys asks for the last one.
    this.range.addEventListener('change', () => {
      clearTimeout(this.wait);
      this.wait = setTimeout(() => this.pick(this.steps[Number(this.range.value)]?.moment ?? null), 250);
    });
    this.now.addEventListener('click', () => this.pick(null));
    this.older.addEventListener('click', () => void this.loadOlder());
    this.el.append(
      h('label', { for: 'graph-moment' }, 'Graph as of'), this.range, this.output, this.now, this.older, this.legend);
  }

  /** The stops for the history as it is now, the slider at `current` (null: now). */
  async show(current: string | null): Promise<void> {
    this.records = [];
    this.next = null;
    try {
      await this.page(null);
    } catch {
      // Without the history the slider only holds now and the route's moment; the graph says why.
    }
    this.layout(current);
    this.now.disabled = current === null;
  }

  /** One page of older changes (the slider stays on the moment it shows). */
  private async loadOlder(): Promise<void> {
    if (this.next === null) return;
    const at = this.steps[Number(this.range.value)]?.moment ?? null;
    this.older.disabled = true;
    try {
      await this.page(this.next);
    } catch {
      // Kept as it was; the button stays to try again.
    }
    this.older.disabled = false;
    this.layout(at);
  }

  private async page(before: string | null): Promise<void> {
    const found = (await gql<{ memoryHistory: { records: Recent[]; nextBefore: string | null } }>(ops.RECENT_CHANGES, { before })).memoryHistory;
    this.records.push(...found.records);
    this.next = found.nextBefore;
  }

  private layout(current: string | null): void {
    const records = this.records;
    this.steps = timeSteps(records, current, this.next === null);
    this.range.max = String(this.steps.length - 1);
    this.range.value = String(Math.max(0, this.steps.findIndex((s) => s.moment === current)));
    this.range.disabled = this.steps.length < 2;
    this.range.title = records.length ? `${records.length} recorded changes: each stop is the graph just before one` : 'No change is recorded yet';
    this.older.hidden = this.next === null;
    this.label();
  }

  /** What changed since the moment drawn (null: the graph now, no legend). */
  setDiff(diff: TimeDiff | null): void {
    this.legend.hidden = !diff;
    this.el.classList.toggle('travelling', Boolean(diff));
    // What is marked, by node id, for tests and tools (the drawing itself is pixels).
    this.el.dataset.changes = diff ? JSON.stringify(Object.fromEntries([...diff.nodes].sort())) : '';
    if (!diff) return;
    clear(this.legend, changeLegend(diff.counts).map((e) => [h('span', { class: `sw${e.dot ? ' dot' : ''}`, style: `background:${e.colour}` }), `${e.label} `]));
  }

  private label(): void {
    const step = this.steps[Number(this.range.value)];
    const text = !step || step.moment === null ? 'now' : step.label;
    this.output.textContent = text;
    this.range.setAttribute('aria-valuetext', text);
  }
}
