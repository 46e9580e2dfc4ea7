// Graph explorer: find a node, its neighbourhood at a depth, expand on click, colour and
// filters, a details panel, and the whole workspace: summed up as clusters past a few thousand
// notes (clusters.ts), a cluster's or every note below. sigma.js (WebGL) + graphology.
import Graph from 'graphology';
import Sigma from 'sigma';
import { NodePointProgram } from 'sigma/rendering';
import { Forbidden, gql } from '../api';
import { FindBox } from '../find';
import { LabelPlacer } from './labels';
import { clear, h } from '../dom';
import type { ChangeEvent } from '../live';
import { labelOfId, showDetails } from './details';
import { renderLegend } from './legend';
import { groupsOf, keepPlaces, layoutSmall, merge, newGraph, overviewGraph, type Neighborhood, type Overview } from './build';
import { isProblemStatus, type ColourBy } from './model';
import { COARSE_NODES } from './layoutrun';
import { LayoutDriver, type Settled } from './overviewlayout';
import { communityColours, type CommunityLegend } from './overviewmodel';
import { routeHash, type Route } from '../logic';
import { filterTest, localMatches, nameMatches, redrawSelection, scopesOf, styleGraph } from './look';
import { CLUSTER_EDGE_BUDGET, CLUSTER_NOTES, CLUSTER_NOTES_CAP, clusterGraph, CLUSTERS_ABOVE, clustersQuery, clusterStatus, drillStatus, styleClusters, clusterTitle, scopeLegend, type ClusterSummary } from './clusters';
import { noteExtent, quietWhileDragging } from './extent';
import { detailsNotice, markChanges, neighborhoodAsOf, overviewAsOf, paintChanges, TimeBar } from './timeline';
import type { TimeDiff } from './timediff';
import { formatMoment } from '../time/moments';
import { oldestShowable } from '../time/asof';
import * as ops from '../ops';
import type { View } from '../view';

// A drawing this big names only its best-connected nodes (label placement looks at each one).
const LABELLED_NODES = 3000;
const CLUSTER_LABELLED = 300;  // of a cluster's 1,500 notes: placing thousands holds the page's thread
// Past this many links, a running layout draws its nodes alone: each update would redraw them all.
const EDGES_WHILE_LAYING_OUT = 5000;
const HUBS = 8;

export class GraphView implements View {
  readonly el = h('div', { class: 'graph-view' });
  private graph = newGraph();
  private sigma: Sigma | null = null;
  private readonly canvas = h('div', { class: 'graph-canvas', role: 'img', 'aria-label': 'Graph drawing' });
  private readonly panel = h('aside', { class: 'details', 'aria-label': 'Details' });
  private readonly status = h('p', { class: 'graph-status', role: 'status' }, '');
  // Which labels are drawn: none over another, the selection's and agents' first.
  private readonly labels = new LabelPlacer(this.canvas, () => this.selected, () => this.hiddenTest());
  private readonly find = new FindBox({
    label: 'Find a node', placeholder: 'Find notes by words or meaning…',
    onHit: (hit) => this.choose(hit.id),
    extra: async (text) => ({ hits: [...await nameMatches(text), ...localMatches(this.graph, text)], pick: (id) => this.choose(id) }),
  });
  private readonly depth = h('select', { 'aria-label': 'Depth' }, [1, 2, 3].map((d) => h('option', { value: String(d) }, `depth ${d}`)));
  private readonly colourBy = h('select', { 'aria-label': 'Colour by' }, (['community', 'kind', 'scope', 'type'] as ColourBy[]).map((c) => h('option', { value: c }, `colour by ${c}`)));
  // Broken and ambiguous links and the unresolved targets they want: a layer the overview draws
  // on request (at 10,000 notes they were a red pile over everything); neighbourhoods always do.
  private readonly problemLayer = h('input', { type: 'checkbox', 'aria-label': 'Problem links' });
  private readonly legend = h('div', { class: 'legend', 'aria-label': 'Legend' });
  private readonly layout = new LayoutDriver();
  private communities: CommunityLegend[] | null = null;
  // Each node's community colour from the last overview: a neighbourhood keeps its colours.
  private communityColour = new Map<string, string>();
  private readonly agentFilter = h('select', { 'aria-label': 'Agent filter' }, h('option', { value: '' }, 'all scopes'));
  private readonly typeFilter = h('select', { 'aria-label': 'Type filter' }, h('option', { value: '' }, 'all types'),
    ['USER', 'FEEDBACK', 'PROJECT', 'REFERENCE'].map((t) => h('option', { value: t }, t.toLowerCase())), h('option', { value: 'NONE' }, 'untyped'));
  private readonly statusFilter = h('select', { 'aria-label': 'Link status filter' }, h('option', { value: '' }, 'all links'),
    h('option', { value: 'PROBLEMS' }, 'only problems'), h('option', { value: 'BROKEN' }, 'broken'), h('option', { value: 'AMBIGUOUS' }, 'ambiguous'), h('option', { value: 'MISSING_ANCHOR' }, 'missing anchor'));
  // Big overviews draw a backbone of links by default; this draws every one (slower to draw and pan).
  private readonly allLinks = h('input', { type: 'checkbox', 'aria-label': 'Draw all links' });
  private overviewCut = '';
  // `clusters`: the workspace summed up (clusters.ts); `cluster` (its notes) and `overview` (all) are wide().
  private mode: { kind: 'overview' } | { kind: 'clusters' } | { kind: 'cluster'; id: string } | { kind: 'focus'; id: string } | null = null;
  // Over the drawing: how many notes a summary or a capped cluster leaves out.
  private readonly more = h('p', { class: 'graph-more', role: 'note', hidden: true });
  private readonly clusterNames = new Map<string, string>();
  private drillTitle = '';
  private selected: string | null = null;
  private colourMode: ColourBy = 'kind';
  private problemNodes: Set<string> | null = null;
  private hidden: ((node: string, a: Record<string, unknown>) => boolean) | null = null;
  // The moment drawn (null: now), and what changed since it (timeline.ts).
  private asOf: string | null = null;
  private diff: TimeDiff | null = null;
  private readonly time = new TimeBar((asOf) => { location.hash = routeHash({ view: 'graph', node: this.mode?.kind === 'focus' ? this.mode.id : undefined, asOf: asOf ?? undefined }); });

  constructor() {
    const overview = h('button', { type: 'button', onclick: () => { location.hash = routeHash({ view: 'graph', asOf: this.asOf ?? undefined }); void this.overview(); } }, 'Whole workspace');
    this.el.append(
      h('div', { class: 'toolbar', role: 'toolbar', 'aria-label': 'Graph controls' },
        this.find.el, this.depth, overview, h('label', { class: 'check' }, this.allLinks, ' all links'),
        h('label', { class: 'check' }, this.problemLayer, ' problem links'),
        this.colourBy, this.agentFilter, this.typeFilter, this.statusFilter),
      this.time.el,
      h('div', { class: 'graph-main' }, h('div', { class: 'graph-area' }, this.status, this.more, this.canvas, this.legend), this.panel));
    clear(this.panel, h('p', { class: 'muted' }, 'Find a note, or click one in the drawing, to see its details, links and backlinks.'));
    for (const s of [this.colourBy, this.agentFilter, this.typeFilter, this.statusFilter, this.problemLayer]) s.addEventListener('change', () => this.applyFilters());
    this.depth.addEventListener('change', () => { if (this.mode?.kind === 'focus') void this.focus(this.mode.id); });
    this.allLinks.addEventListener('change', () => { if (this.mode?.kind === 'overview') void this.overview(); else if (this.mode?.kind === 'cluster') void this.drill(this.mode.id); });
  }

  async show(route: Route): Promise<void> {
    if (route.view !== 'graph') return;
    this.ensureSigma();
    const moved = (route.asOf ?? null) !== this.asOf;
    this.asOf = route.asOf ?? null;
    void this.time.show(this.asOf);
    if (route.node) {
      if (moved || this.mode?.kind !== 'focus' || this.mode.id !== route.node) await this.focus(route.node);
    } else if (route.cluster) {
      if (moved || this.mode?.kind !== 'cluster' || this.mode.id !== route.cluster) await this.drill(route.cluster);
    } else if (moved || !this.mode || (this.mode.kind !== 'overview' && this.mode.kind !== 'clusters')) {
      await this.overview();
    }
  }

  changed(events: ChangeEvent[]): void {
    if (!this.el.isConnected || !this.mode) return;
    const relevant = events.some((e) => e.id === '*' || this.graph.hasNode(e.id) || e.kind === 'ADDED');
    if (!relevant) return;
    if (this.mode.kind === 'overview' || this.mode.kind === 'clusters') void this.overview(true);
    else if (this.mode.kind === 'cluster') void this.drill(this.mode.id, true);
    else void this.focus(this.mode.id, true);
    void this.time.show(this.asOf);  // a new change is a new stop on the slider
    if (this.selected) void this.details(this.selected);
  }

  private setGraph(g: Graph): void {
    // Arrow heads cost a second program per edge: big drawings get plain lines.
    this.sigma?.setSetting('defaultEdgeType', g.size > 1500 ? 'line' : 'arrow');
    // Big drawings move without their labels (and, as always, without edges): a frame then
    // costs the nodes alone.
    this.sigma?.setSetting('hideLabelsOnMove', g.order > 2000);
    // Nodes as GL points: one vertex each in one draw, where a disc is an instanced triangle;
    // a software renderer (no GPU) draws 10,000 of them many times faster.
    this.sigma?.setSetting('defaultNodeType', g.order > 2000 ? 'point' : 'circle');
    this.labels.invalidate();
    this.sigma?.setGraph(g);
    this.graph = g;
  }

  private ensureSigma(): void {
    if (this.sigma) return;
    this.sigma = new Sigma(this.graph, this.canvas, {
      renderEdgeLabels: false, labelRenderedSizeThreshold: 7, defaultEdgeType: 'arrow', hideEdgesOnMove: true,
      renderLabels: false, labelFont: 'system-ui, sans-serif', zIndex: true,
      nodeProgramClasses: { point: NodePointProgram },
      nodeReducer: (node, data) => this.reduceNode(node, data),
      edgeReducer: (edge, data) => this.reduceEdge(edge, data),
    });
    quietWhileDragging(this.sigma);
    this.labels.attach(this.sigma);
    this.sigma.on('afterRender', () => { if (this.sigma) noteExtent(this.sigma, this.canvas, HUBS); });
    // In the whole workspace a click goes to the node's neighbourhood (from a summary, to the
    // cluster's notes); around a node it expands the node.
    this.sigma.on('clickNode', ({ node }) => {
      if (this.mode?.kind === 'clusters') { if (this.graph.getNodeAttribute(node, 'clusterKind') !== 'entities') location.hash = routeHash({ view: 'graph', cluster: node, asOf: this.asOf ?? undefined }); } else if (this.wide()) this.choose(node); else void this.select(node, true);
    });
    this.sigma.on('enterNode', () => { this.canvas.style.cursor = 'pointer'; });
    this.sigma.on('leaveNode', () => { this.canvas.style.cursor = ''; });
  }

  // ------------------------------------------------------------------ data

  /** The whole workspace: summed up as clusters past CLUSTERS_ABOVE notes, else every note. */
  async overview(quiet = false): Promise<void> {
    if (!quiet) this.status.textContent = 'Loading the whole workspace…';
    let summary: ClusterSummary;
    try {
      performance.mark('overview:ask');
      summary = (await gql<{ graphClusters: ClusterSummary }>(...clustersQuery(this.asOf))).graphClusters;
    } catch (e) {
      this.failed(e);
      return;
    }
    if (summary.notes > CLUSTERS_ABOVE) this.drawClusters(summary);
    else await this.everyNote(null, quiet);
  }

  /** Every note of the workspace, or of one cluster (`cluster`: its best-linked CLUSTER_NOTES_CAP). */
  private async everyNote(cluster: string | null, quiet = false): Promise<void> {
    this.mode = cluster ? { kind: 'cluster', id: cluster } : { kind: 'overview' };
    this.hidden = null;
    this.problemLayer.disabled = false;
    if (!quiet) this.status.textContent = cluster ? 'Loading the cluster’s notes…' : 'Loading the whole workspace…';
    let data: Overview & { memoryTotal?: number };
    try {
      // The server picks the links drawn (every problem link and the backbone) unless all are asked for.
      const [query, variables] = ops.overview(this.allLinks.checked);
      if (cluster) {
        data = (await gql<{ graphOverview: Overview & { memoryTotal: number } }>(CLUSTER_NOTES, { cluster, limit: CLUSTER_NOTES_CAP,
          edgeBudget: this.allLinks.checked ? null : CLUSTER_EDGE_BUDGET, asOf: this.asOf })).graphOverview;
        this.diff = null;  // a cluster as of a moment: its notes then, without the changes since
      } else {
        const past = this.asOf ? await overviewAsOf(this.asOf, variables.edgeBudget as number | null) : null;
        data = past?.overview ?? (await gql<{ graphOverview: Overview }>(query, variables)).graphOverview;
        this.diff = past?.diff ?? null;
      }
    } catch (e) {
      this.failed(e);
      return;
    }
    performance.mark('overview:answered');  // bench/bench_ui.py reports where the time goes
    const c = data.columns;
    const { g, drawn } = overviewGraph(c, cluster ? CLUSTER_LABELLED : LABELLED_NODES);
    if (this.diff) markChanges(g, this.diff);
    this.overviewCut = drawn.length < data.edgeTotal
      ? ` (${data.edgeTotal} links; the ${drawn.length} drawn are every problem link and the best-connected ones: tick “all links” for the rest)`
      : '';
    const notes = c.kind.reduce((n, k) => n + (k === 'memory' ? 1 : 0), 0);
    const title = this.drillTitle = cluster ? drillStatus(this.clusterNames.get(cluster) ?? cluster, notes, data.memoryTotal ?? notes) : '';
    this.showMore(cluster && notes < (data.memoryTotal ?? notes) ? title : '');
    // A live change redraws the workspace where it was (a person's bearings are worth more than
    // a fresh layout): new nodes join their neighbours; else the layout runs.
    const before = quiet && this.graph.order && this.canvas.dataset.layout === 'settled' ? this.graph : null;
    if (before) keepPlaces(g, before, c.id, drawn.map((i) => [c.source[i], c.target[i]]));
    else this.layOut(g, c.id, Int32Array.from(drawn, (i) => c.source[i]), Int32Array.from(drawn, (i) => c.target[i]), groupsOf(c.scope));
    this.present(g);
    this.report(data.truncated && !cluster ? ' (memories cut at the limit)' : '', this.when(cluster ? title : 'Whole workspace'));
  }

  /** One cluster's notes (a click in the summary, or `#/graph?cluster=`), named as the summary drawn named it. */
  private async drill(cluster: string, quiet = false): Promise<void> {
    if (this.graph.hasNode(cluster) || !this.clusterNames.has(cluster)) this.clusterNames.set(cluster, clusterTitle(cluster, this.graph.hasNode(cluster) ? this.graph.getNodeAttributes(cluster) : null));
    await this.everyNote(cluster, quiet);
  }

  /** The summary: a node per scope and cluster, laid out in the worker, labelled all (a few hundred). */
  private drawClusters(s: ClusterSummary): void {
    this.mode = { kind: 'clusters' };
    this.hidden = null;
    this.diff = null;
    this.problemLayer.disabled = true;  // problems are counted per cluster; a cluster's drawing shows them
    const d = clusterGraph(s);
    performance.mark('overview:answered');
    this.layOut(d.g, d.ids, d.source, d.target, d.group, { weight: d.weight, size: d.size });
    this.present(d.g);
    this.showMore(d.hidden ? `${d.hidden} more clusters (${d.hiddenNotes.toLocaleString('en')} notes) not drawn` : '');
    Object.assign(this.canvas.dataset, { level: 'clusters', nodes: String(d.g.order), edges: String(d.g.size) });
    this.sigma?.setSetting('labelRenderedSizeThreshold', 0);  // a few hundred: any may be named, none over another
    this.canvas.setAttribute('aria-label', `Whole workspace as clusters: ${d.g.order} nodes and ${d.g.size} edges`);
    this.status.textContent = `${this.when('Whole workspace')}: ${clusterStatus(s, d)}`;
  }

  /** Styles `g`, draws it whole (the camera reset) and fills the filters from it. */
  private present(g: Graph): void {
    this.styleAll(g);
    performance.mark('overview:built');  // bench/bench_graph_view.py: first drawing
    this.setGraph(g);
    performance.mark('overview:handed');
    this.fillAgentFilter();
    this.applyFilters(false);
    this.sigma?.getCamera().animatedReset({ duration: 0 });
  }

  private showMore(text: string): void {
    Object.assign(this.more, { textContent: text, hidden: !text });
  }

  private wide(): boolean {
    return this.mode?.kind === 'overview' || this.mode?.kind === 'cluster';
  }

  /**
   * Lays the overview out (layoutworker.ts, off this thread past a few hundred nodes): colours by
   * community once they are known, moves the nodes as positions come, and says when it is done:
   * `data-layout="settled"` on the canvas and a `layoutsettled` event (tests and the bench wait on it).
   */
  private layOut(g: Graph, ids: string[], source: Int32Array, target: Int32Array, group: Int32Array,
    discs?: { weight: Float32Array; size: Float32Array }): void {
    this.canvas.dataset.layout = 'running';
    if (!discs) this.canvas.dataset.level = this.mode?.kind === 'cluster' ? 'cluster' : 'notes';
    const place = (p: Float32Array) => {
      // Sigma's graph, in place, without events (it re-reads every node at the refresh anyway).
      ids.forEach((id, i) => { const a = g.getNodeAttributes(id); a.x = p[2 * i]; a.y = p[2 * i + 1]; });
      if (this.graph === g) { this.labels.invalidate(); this.sigma?.refresh(); }
    };
    this.layout.start({ nodes: ids.length, source, target, group, ...discs }, {
      communities: (community) => {
        const { colours, legend } = communityColours(community, g.mapNodes((_n, a) => Number(a.degree)), g.mapNodes((_n, a) => String(a.label || _n)));
        this.communityColour = new Map(ids.map((id, i) => [id, colours[i]]));
        this.communities = legend;
        // A very big drawing is redrawn once, when settled (each redraw re-reads every node and
        // link: seconds at 100,000), the colours with the places; smaller ones colour now.
        if (this.graph === g) { this.styleAll(); if (ids.length <= COARSE_NODES) this.sigma?.refresh(); }
      },
      positions: (p, iterations, drawn) => {
        const t0 = performance.now();
        place(p);
        this.canvas.dataset.layoutIterations = String(iterations);
        // The next positions after four times this redraw's cost: at most a fifth of the
        // page's time goes to watching the layout move; the rest answers the person.
        setTimeout(drawn, Math.max(100, 4 * (performance.now() - t0)));
      },
      settled: (p, info: Settled) => {
        place(p);
        performance.mark('overview:settled');  // bench/bench_graph_view.py: time to a settled layout
        Object.assign(this.canvas.dataset, { layout: 'settled', layoutIterations: String(info.iterations), layoutReason: info.reason, layoutMs: info.ms.toFixed(0), layoutWhere: info.where, layoutLevel: info.level });
        this.canvas.dispatchEvent(new CustomEvent('layoutsettled', { detail: info }));
      },
    }, discs !== undefined);
  }

  private async focus(id: string, quiet = false): Promise<void> {
    this.layout.stop();
    delete this.canvas.dataset.layout;
    delete this.canvas.dataset.level;
    this.showMore('');
    this.mode = { kind: 'focus', id };
    this.hidden = null;
    this.problemLayer.disabled = true;  // a neighbourhood always draws its problems
    if (!quiet) this.status.textContent = 'Loading the neighbourhood…';
    let nb: Neighborhood | null;
    try {
      const past = this.asOf ? await neighborhoodAsOf(id, Number(this.depth.value), this.asOf) : null;
      nb = past ? past.nb : (await gql<{ neighborhood: Neighborhood | null }>(ops.NEIGHBORHOOD, { id, depth: Number(this.depth.value) })).neighborhood;
      this.diff = past?.diff ?? null;
    } catch (e) {
      this.failed(e);
      return;
    }
    if (!nb) { this.status.textContent = `There is no node ${id}.`; return; }
    const g = newGraph();
    merge(g, nb, null);
    if (this.diff) markChanges(g, this.diff);
    layoutSmall(g);
    this.present(g);
    await this.select(id, false);
    this.report(nb.truncated ? ' (cut at 500 nodes)' : '', this.when(`Around ${labelOfId(id)}, depth ${this.depth.value}`));
  }

  /** Adds the node's neighbours (depth 1) next to it; what is drawn already stays where it is. */
  async expand(id: string): Promise<void> {
    const past = this.asOf ? await neighborhoodAsOf(id, 1, this.asOf) : null;
    const nb = past ? past.nb : (await gql<{ neighborhood: Neighborhood | null }>(ops.NEIGHBORHOOD, { id, depth: 1 })).neighborhood;
    if (!nb) return;
    const before = this.graph.order;
    merge(this.graph, nb, id);
    if (past && this.diff) { for (const [k, v] of past.diff.nodes) this.diff.nodes.set(k, v); for (const [k, v] of past.diff.edges) this.diff.edges.set(k, v); markChanges(this.graph, this.diff); }
    this.styleAll();
    this.fillAgentFilter();
    this.applyFilters(false);
    this.sigma?.scheduleRefresh();
    this.report(` (+${this.graph.order - before} from ${labelOfId(id)})`, this.wide() ? 'Whole workspace' : 'Explored');
  }

  /** The status line's subject, with the moment drawn. */
  private when(what: string): string {
    return this.asOf ? `${what} as of ${formatMoment(this.asOf)}` : what;
  }

  private failed(e: unknown): void {
    this.diff = null;
    this.time.setDiff(null);
    if (e instanceof Forbidden) {
      this.status.textContent = 'The graph reads every agent’s notes, so it needs an admin token. This token reaches its own notes in Memory.';
      return;
    }
    // A moment the history cannot show draws nothing (not the moment before), and offers the oldest it can.
    const oldest = this.asOf ? oldestShowable((e as Error).message) : null;
    if (this.asOf) { this.setGraph(newGraph()); this.canvas.dataset.nodes = '0'; }
    clear(this.status, `Could not load the graph: ${(e as Error).message}`, oldest ? [' ', h('a', { href: routeHash({
      view: 'graph', node: this.mode?.kind === 'focus' ? this.mode.id : undefined, asOf: oldest }) }, 'Show the oldest moment it can')] : null);
  }

  private report(note: string, what: string): void {
    // Small drawings name every node; big ones only those zoomed in on.
    this.sigma?.setSetting('labelRenderedSizeThreshold', this.graph.order <= 300 ? 0 : 7);
    const visible = this.graph.filterNodes((n, a) => !this.isHidden(a, n)).length;
    this.canvas.dataset.nodes = String(this.graph.order);
    this.canvas.dataset.edges = String(this.graph.size);
    this.canvas.setAttribute('aria-label', `${what}: ${this.graph.order} nodes and ${this.graph.size} edges`);
    const cut = this.wide() ? this.overviewCut : '';
    this.status.textContent = `${what}: ${this.graph.order} nodes, ${this.graph.size} edges${visible !== this.graph.order ? `, ${visible} shown by the filters` : ''}${note}${cut}`;
  }

  // ------------------------------------------------------------------ look and filters

  /**
   * Writes each node's and edge's look (colour, size, label) into its attributes, in place and
   * without graph events, so sigma's reducers only handle selection and filters: at 10,000
   * notes a per-frame reducer that computes colours costs seconds on a software renderer.
   */
  private styleAll(g: Graph = this.graph): void {
    this.colourMode = this.colourBy.value as ColourBy;
    this.labels.invalidate();
    if (this.mode?.kind === 'clusters') {
      styleClusters(g);
      renderLegend(this.legend, scopeLegend(g), false, 'A disc’s size is its notes, a line’s width the links between two clusters.');
      this.legend.hidden = false;
      this.time.setDiff(null);
      return;
    }
    const overview = this.wide();
    const community = this.colourMode === 'community' ? this.communityColour : null;
    styleGraph(g, overview, this.colourMode, community);
    renderLegend(this.legend, overview && community ? this.communities : null, !overview || this.problemsShown());
    // As of a moment, the colours say what changed since (the time bar's legend), over the rest.
    if (this.diff) paintChanges(g);
    this.legend.hidden = Boolean(this.diff);
    this.time.setDiff(this.diff);
  }

  private fillAgentFilter(): void {
    const current = this.agentFilter.value;
    clear(this.agentFilter, h('option', { value: '' }, 'all scopes'), scopesOf(this.graph).map((s) => h('option', { value: s, selected: s === current }, s)));
  }

  private applyFilters(refresh = true): void {
    this.hidden = null;
    const status = this.statusFilter.value;
    this.labels.invalidate();
    if (status) {
      const keep = new Set<string>();
      this.graph.forEachEdge((_e, a, s, t) => {
        if (status === 'PROBLEMS' ? isProblemStatus(a.status as string | null) : a.status === status) { keep.add(s); keep.add(t); }
      });
      this.problemNodes = keep;
    } else {
      this.problemNodes = null;
    }
    this.hidden = null;
    if (refresh) {
      this.styleAll();
      this.sigma?.scheduleRefresh();
    } else if (this.problemNodes) {
      this.sigma?.scheduleRefresh();
    }
    if (this.mode && this.mode.kind !== 'clusters') this.report('', this.when(this.mode.kind === 'overview' ? 'Whole workspace' : this.mode.kind === 'cluster' ? this.drillTitle : `Around ${labelOfId(this.mode.id)}`));
  }

  /** Whether problem links and unresolved targets are drawn: always around a node; in the overview, on request (the layer, or a link-status filter that asks for them). */
  private problemsShown(): boolean {
    return !this.wide() || this.problemLayer.checked || (this.statusFilter.value !== '' && this.statusFilter.value !== 'RESOLVED');
  }

  private isHidden(a: Record<string, unknown>, node: string): boolean {
    // The filters' test once per change of them (applyFilters), not per node: sigma asks per node at each refresh.
    this.hidden ??= this.hiddenTest();
    return this.hidden(node, a);
  }

  /** The filters' test with their values read once (a select's value walks its options: per node, it adds up). */
  private hiddenTest(): (node: string, a: Record<string, unknown>) => boolean {
    const agent = this.agentFilter.value;
    const type = this.typeFilter.value;
    const problems = this.problemNodes;
    const noProblems = !this.problemsShown();
    return filterTest(agent, type, problems, noProblems);
  }

  private reduceNode(node: string, data: Record<string, unknown>): Record<string, unknown> {
    if (this.isHidden(data, node)) return { ...data, hidden: true };
    if (node === this.selected) return { ...data, highlighted: true, forceLabel: true, zIndex: 3 };
    return data;
  }

  private reduceEdge(edge: string, data: Record<string, unknown>): Record<string, unknown> {
    const status = this.statusFilter.value;
    const s = data.status as string | null;
    if (status && !(status === 'PROBLEMS' ? isProblemStatus(s) : s === status)) return { ...data, hidden: true };
    if (isProblemStatus(s) && !this.problemsShown() && !data.change) return { ...data, hidden: true };
    // While a big layout runs its links are not drawn: each update would redraw them all.
    if (this.layout.running && this.graph.size > EDGES_WHILE_LAYING_OUT) return { ...data, hidden: true };
    // The graph sigma draws (during setGraph it is already the new one, `this.graph` maybe not).
    const graph = this.sigma?.getGraph() ?? this.graph;
    if (this.selected && graph.hasEdge(edge) && graph.hasExtremity(edge, this.selected)) return { ...data, size: Math.max(1.5, Number(data.size)), zIndex: 3 };
    return data;
  }

  // ------------------------------------------------------------------ find and select

  private choose(id: string): void {
    location.hash = routeHash({ view: 'graph', node: id, asOf: this.asOf ?? undefined });
  }

  private async details(id: string): Promise<void> {
    await showDetails(this.panel, id, () => this.selected, { select: (other) => void this.select(other, true), expand: (node) => void this.expand(node) });
    if (this.asOf && this.selected === id) this.panel.prepend(detailsNotice(id, this.asOf));
  }

  private async select(id: string, expand: boolean): Promise<void> {
    const previous = this.selected;
    this.selected = id;
    if (!expand || this.mode?.kind !== 'focus') {
      this.labels.invalidate();
      if (this.sigma) redrawSelection(this.sigma, previous, id);
      await this.details(id);
      return;
    }
    // The drawing first: the expand's one redraw shows the selection too, and the details
    // (links and backlinks: the bigger answer) are asked for once it is drawn, so the two
    // do not share the server while the person waits for the neighbours.
    try {
      await this.expand(id);
    } finally {
      await this.details(id);
    }
  }


}
