// The graph view's graphs, built from the API's answers: the whole workspace (from the
// overview's columns), a neighbourhood merged in, and where their nodes start. Apart from
// graph.ts (the view: drawing, filters, details) so each stays a size a reader can hold.
import Graph from 'graphology';
import forceAtlas2 from 'graphology-layout-forceatlas2';
import { clusterLayout, clusterOf, drawableEdges, fanOut, typicalSpacing, type NodeAttrs } from './model';
import { importantNodes } from './overview/model';

export type Columns = { id: string[]; kind: string[]; label: string[]; scope: (string | null)[]; type: (string | null)[];
  problems: number[]; memoryOff: boolean[]; degree: number[]; source: number[]; target: number[]; status: (string | null)[] };
export type Overview = { truncated: boolean; edgeTotal: number; columns: Columns };
export const STATUS_OF: Record<string, string> = { resolved: 'RESOLVED', broken: 'BROKEN', ambiguous: 'AMBIGUOUS', 'missing-anchor': 'MISSING_ANCHOR' };
export type NbNode = { __typename: string; id: string; name?: string; scope?: string; type?: string | null; problems?: { code: string }[]; memoryOff?: boolean; target?: string };
export type Neighborhood = { truncated: boolean; nodes: NbNode[]; edges: { type: string; source: string; target: string; link: { status: string } | null }[] };
export const KIND_OF_TYPENAME: Record<string, string> = { Memory: 'memory', Agent: 'agent', Workflow: 'workflow', Chat: 'chat', WorkItem: 'work-item', Unresolved: 'unresolved' };

/**
 * The whole workspace as a graph: every node (starting where its scope's disc is, until the
 * layout moves it), every link but self-links; past `labelled` nodes, only the best-connected
 * that many keep a label (`quiet` the others: label placement looks at each labelled node).
 */
export function overviewGraph(c: Columns, labelled: number): { g: Graph; drawn: number[] } {
  const nodes: NodeAttrs[] = c.id.map((_, i) => ({
    kind: c.kind[i], label: c.label[i], scope: c.scope[i], memType: c.type[i]?.toUpperCase() ?? null,
    problems: c.problems[i], memoryOff: c.memoryOff[i],
  }));
  // Where nodes start (each scope a disc) until the layout's first positions come.
  const positions = clusterLayout(nodes.map((n) => ({ cluster: clusterOf(n) })));
  const drawn = drawableEdges(c.source, c.target);
  const named = c.id.length > labelled ? importantNodes(c.degree, labelled) : null;
  // Built apart from sigma, then handed over: sigma does per-edge work on every addEdge event.
  const g = newGraph();
  nodes.forEach((n, i) => g.addNode(c.id[i], { ...n, x: positions[i].x, y: positions[i].y, degree: c.degree[i],
    quiet: named !== null && !named.has(i) }));
  for (const i of drawn) {
    const status = c.status[i];
    g.addEdge(c.id[c.source[i]], c.id[c.target[i]], { status: status === null ? null : STATUS_OF[status] ?? 'RESOLVED' });
  }
  return { g, drawn };
}

export function merge(g: Graph, nb: Neighborhood, around: string | null): void {
  const fresh = nb.nodes.filter((n) => !g.hasNode(n.id));
  // Around a node already drawn: its new neighbours fan out from it; else a small circle that
  // the force layout spreads.
  const spot = around && g.hasNode(around) ? g.getNodeAttributes(around) as { x: number; y: number } : null;
  const places = spot ? fanOut(spot, centroid(g), fresh.length, spacingOf(g))
    : fresh.map((_, i) => {
      const angle = (i / Math.max(1, fresh.length)) * Math.PI * 2;
      return { x: Math.cos(angle) * 5 + Math.random(), y: Math.sin(angle) * 5 + Math.random() };
    });
  fresh.forEach((n, i) => {
    const a: NodeAttrs = {
      kind: KIND_OF_TYPENAME[n.__typename] ?? 'memory',
      label: n.name ?? n.target ?? n.id, scope: n.scope ?? (n.__typename === 'Agent' ? n.name ?? null : null),
      memType: n.type ?? null, problems: n.problems?.length ?? 0, memoryOff: Boolean(n.memoryOff),
    };
    g.addNode(n.id, { ...a, ...places[i] });
  });
  for (const e of nb.edges) {
    const status = e.type === 'REMEMBERS' ? null : e.link?.status ?? 'RESOLVED';
    const exists = g.edges(e.source, e.target).some((k) => g.getEdgeAttribute(k, 'status') === status);
    if (!exists && e.source !== e.target && g.hasNode(e.source) && g.hasNode(e.target)) g.addEdge(e.source, e.target, { status });
  }
}

/** Nodes `before` drew keep their place; new ones go to the middle of their placed neighbours (or of the drawing). */
export function keepPlaces(g: Graph, before: Graph, ids: string[], edges: [number, number][]): void {
  const placed = ids.map((id) => before.hasNode(id));
  ids.forEach((id, i) => { if (placed[i]) g.mergeNodeAttributes(id, { x: before.getNodeAttribute(id, 'x'), y: before.getNodeAttribute(id, 'y') }); });
  const middle = centroid(before);
  const sum = new Map<number, [number, number, number]>();
  for (const [s, t] of edges) {
    for (const [a, b] of [[s, t], [t, s]]) {
      if (placed[a] || !placed[b]) continue;
      const acc = sum.get(a) ?? [0, 0, 0];
      acc[0] += g.getNodeAttribute(ids[b], 'x') as number; acc[1] += g.getNodeAttribute(ids[b], 'y') as number; acc[2]++;
      sum.set(a, acc);
    }
  }
  ids.forEach((id, i) => {
    if (placed[i]) return;
    const acc = sum.get(i);
    g.mergeNodeAttributes(id, acc ? { x: acc[0] / acc[2] + Math.random(), y: acc[1] / acc[2] + Math.random() } : { x: middle.x + Math.random(), y: middle.y + Math.random() });
  });
}

export function centroid(g: Graph): { x: number; y: number } {
  let x = 0;
  let y = 0;
  g.forEachNode((_n, a) => { x += a.x as number; y += a.y as number; });
  return g.order ? { x: x / g.order, y: y / g.order } : { x: 0, y: 0 };
}

/** The drawing's typical link length (over its first few hundred links). */
export function spacingOf(g: Graph): number {
  const lengths: number[] = [];
  g.someEdge((_e, _a, _s, _t, sa, ta) => {
    lengths.push(Math.hypot((sa.x as number) - (ta.x as number), (sa.y as number) - (ta.y as number)));
    return lengths.length >= 300;
  });
  return typicalSpacing(lengths, 5);
}

export function layoutSmall(g: Graph, iterations = 80): void {
if (g.order > 2000 || g.order < 2) return;
forceAtlas2.assign(g, { iterations, settings: { ...forceAtlas2.inferSettings(g), barnesHutOptimize: g.order > 300 } });
}

export function newGraph(): Graph {
  return new Graph({ multi: true, type: 'directed', allowSelfLoops: false });
}

/** Each node's scope as a small number (the layout gathers tiny communities by it). */
export function groupsOf(scope: (string | null)[]): Int32Array {
  const index = new Map<string | null, number>();
  return Int32Array.from(scope, (s) => {
    let k = index.get(s);
    if (k === undefined) { k = index.size; index.set(s, k); }
    return k;
  });
}
