// How the graph view's nodes and links look and which the filters hide: written into their
// attributes once per change (not per frame by sigma's reducers: at 10,000 notes that cost
// seconds on a software renderer), and the find box's name matches. Apart from view.ts so the
// view stays a size a reader can hold.
import type Graph from 'graphology';
import type Sigma from 'sigma';
import { gql } from '../api';
import type { ExtraHit } from '../find';
import * as ops from '../ops';
import { edgeColour, isProblemStatus, nodeColour, nodeSize, type ColourBy, type NodeAttrs } from './model';
import { degreeSize, edgeAlpha, withAlpha } from './overviewmodel';

const FORCED_UNRESOLVED_LABELS = 40;
const OVERVIEW_LINK = '#4a5260';

/**
 * Each node's and edge's colour, size and label. `overview`: a wide drawing (every note, or a
 * cluster's), sized by degree with faint links; `community`: each node's community colour.
 */
export function styleGraph(g: Graph, overview: boolean, colourMode: ColourBy, community: Map<string, string> | null): void {
  // Unresolved targets always show their name, unless there are so many (a big overview)
  // that their forced labels would pile up into an unreadable smear.
  let unresolved = 0;
  g.forEachNode((_n, a) => { if (a.kind === 'unresolved') unresolved++; });
  const nameUnresolved = unresolved <= FORCED_UNRESOLVED_LABELS;
  // The overview sizes by degree against its best-connected node, fades its links by their
  // number, and colours by community (a neighbourhood keeps the colours its nodes had there).
  let maxDegree = 0;
  // Against the best-connected note: an agent's degree counts each of its notes, and would make every note a dot.
  if (overview) g.forEachNode((_n, a) => { if (a.kind !== 'agent') maxDegree = Math.max(maxDegree, Number(a.degree) || 0); });
  const alpha = edgeAlpha(g.size);
  g.forEachNode((node, a) => {
    const n = a as unknown as NodeAttrs;
    const name = String(a.name ??= a.label);  // the label as given: restyling must not add to it
    a.color = n.kind !== 'unresolved' && community?.get(node) || nodeColour(n, colourMode);
    const degree = typeof a.degree === 'number' ? a.degree : g.degree(node);
    a.size = overview ? degreeSize(degree, maxDegree) + (n.kind === 'agent' ? 3 : 0) : nodeSize(n, degree);
    a.label = a.quiet ? '' : n.kind === 'unresolved' ? `⚠ ${name}` : n.memoryOff ? `${name} (memory off)` : name;
    a.forceLabel = n.kind === 'agent' || (n.kind === 'unresolved' && nameUnresolved);
    a.zIndex = n.kind === 'unresolved' || n.problems ? 2 : 1;
  });
  g.forEachEdge((_e, a) => {
    const bad = isProblemStatus(a.status as string | null);
    // Faint links in numbers: a darker grey than a neighbourhood's, as each is mostly transparent.
    a.color = !overview ? edgeColour(a.status as string | null)
      : withAlpha(bad ? edgeColour(a.status as string | null) : OVERVIEW_LINK, bad ? Math.max(0.35, alpha) : alpha);
    a.size = bad ? (overview ? 1 : 2.5) : overview ? 0.5 : 0.6;
    a.zIndex = bad ? 2 : 0;
  });
}

/** The filters' test, with their values read once (a select's value walks its options: per node, it adds up). */
export function filterTest(agent: string, type: string, problems: Set<string> | null, noProblems: boolean): (node: string, a: Record<string, unknown>) => boolean {
  return (node, a) => {
    if (noProblems && a.kind === 'unresolved' && !a.change) return true;  // what changed since a moment always shows
    if (agent && a.kind === 'memory' && a.scope !== agent) return true;
    if (agent && (a.kind === 'agent' || a.kind === 'scope' || a.kind === 'cluster') && a.scope !== agent) return true;
    if (type && a.kind === 'memory' && (type === 'NONE' ? a.memType != null : a.memType !== type)) return true;
    if (problems && !problems.has(node)) return true;
    return false;
  };
}

/** Notes whose name contains what is typed so far: search ranks whole words, a type-ahead needs prefixes. */
export async function nameMatches(text: string): Promise<ExtraHit[]> {
  const q = text.toLowerCase();
  const d = await gql<{ memories: { nodes: { id: string; name: string; scope: string; description: string }[] } }>(ops.FIND_NAME, { text });
  const rank = (l: string) => (l === q ? 0 : l.startsWith(q) ? 1 : 2);
  return d.memories.nodes.filter((m) => m.name.toLowerCase().includes(q))
    .sort((a, b) => rank(a.name.toLowerCase()) - rank(b.name.toLowerCase()))
    .map((m) => ({ id: m.id, label: m.name, detail: `${m.scope} · name match · ${m.description}` }));
}


/** Agents, entities and unresolved targets in the drawing whose label matches (search finds notes). */
export function localMatches(g: Graph, text: string): ExtraHit[] {
  const q = text.toLowerCase();
  const local: ExtraHit[] = [];
  g.forEachNode((n, a) => {
    if (local.length < 8 && a.kind !== 'memory' && String(a.label).toLowerCase().includes(q)) local.push({ id: n, label: String(a.label), detail: String(a.kind) });
  });
  return local;
}

/** The scopes of the drawing's notes, agents and scope nodes, sorted (the agent filter's options). */
export function scopesOf(g: Graph): string[] {
  const scopes = new Set<string>();
  g.forEachNode((_n, a) => { if (a.scope && (a.kind === 'memory' || a.kind === 'agent' || a.kind === 'scope')) scopes.add(a.scope as string); });
  return [...scopes].sort();
}

/** Redraws a change of selection alone: a full refresh re-reads every node and edge. */
export function redrawSelection(sigma: Sigma, previous: string | null, id: string): void {
  const graph = sigma.getGraph();
  const nodes = [previous, id].filter((n): n is string => n !== null && graph.hasNode(n));
  const edges = new Set<string>();
  for (const n of nodes) graph.forEachEdge(n, (e) => { edges.add(e); });
  try {
    sigma.refresh({ partialGraph: { nodes, edges: [...edges] }, skipIndexation: true, schedule: true });
  } catch {
    sigma.scheduleRefresh();  // not drawn yet (e.g. hidden by a filter until now)
  }
}
