// The whole workspace past a few thousand notes, at the level a person can read: one node per
// scope and per cluster of its notes (GraphQL graphClusters: a folder, or a big folder's notes by
// the first word of their names), sized by how many notes it holds, linked by how many links
// run between them; a click draws one cluster's notes (graphOverview(cluster:)), the best-linked
// first, and says how many more there are. At 100,000 notes the note-level drawing was a grey
// hairball that took minutes to settle (issue 42). Pure (no DOM, no sigma): unit-tested.
import Graph from 'graphology';
import CLUSTER_NOTES_DOCUMENT from '../../../graphql/cluster-notes.graphql';
import { COMMUNITY_PALETTE, SMALL_COMMUNITY, withAlpha } from './overviewmodel';

export { CLUSTERS, clustersQuery } from './clusterquery';
export const CLUSTER_NOTES = CLUSTER_NOTES_DOCUMENT;

/** Past this many notes the whole workspace opens as clusters: below it, every note is drawn. */
export const CLUSTERS_ABOVE = 5000;
/** A cluster's drawing holds at most this many notes (its best-linked); the rest are counted. */
export const CLUSTER_NOTES_CAP = 1500;
/** Links a cluster's drawing asks for at most (every problem link and the best-connected). */
export const CLUSTER_EDGE_BUDGET = 20_000;
/** The summary draws at most this many clusters (the largest); the rest are counted. */
export const MAX_CLUSTERS = 300;
/** Each cluster keeps its strongest this many links to others, and the drawing the strongest overall. */
export const LINKS_PER_CLUSTER = 4;
export const STRONGEST_LINKS = 600;

export type ClusterInfo = { id: string; kind: string; scope: string; label: string; folder: string; notes: number;
  links: number; outside: number; problems: number; hubs: string[] };
export type ClusterSummary = { notes: number; links: number; problems: number; wanted: number;
  scopes: { scope: string; notes: number; agent: boolean; memoryOff: boolean }[];
  clusters: ClusterInfo[]; edgeSources: number[]; edgeTargets: number[]; edgeLinks: number[] };


/** Which cluster-to-cluster edges are drawn: each cluster's strongest few and the strongest overall (indexes, ascending). */
export function strongEdges(s: ClusterSummary, kept: (i: number) => boolean, perCluster = LINKS_PER_CLUSTER, strongest = STRONGEST_LINKS): number[] {
  const order = s.edgeLinks.map((_, i) => i).filter((i) => kept(s.edgeSources[i]) && kept(s.edgeTargets[i]))
    .sort((a, b) => s.edgeLinks[b] - s.edgeLinks[a] || a - b);
  const out = new Set(order.slice(0, strongest));
  const taken = new Map<number, number>();
  for (const i of order) {
    const [a, b] = [s.edgeSources[i], s.edgeTargets[i]];
    if ((taken.get(a) ?? 0) < perCluster || (taken.get(b) ?? 0) < perCluster) out.add(i);
    taken.set(a, (taken.get(a) ?? 0) + 1);
    taken.set(b, (taken.get(b) ?? 0) + 1);
  }
  return [...out].sort((a, b) => a - b);
}

/** A cluster's disc: its area grows with its notes, the largest `max` px. */
export function clusterSize(notes: number, maxNotes: number, min = 4, max = 28): number {
  if (maxNotes <= 0) return min;
  return min + (max - min) * Math.sqrt(Math.min(notes, maxNotes) / maxNotes);
}

export type ClusterDrawing = { g: Graph; shown: number; hidden: number; hiddenNotes: number; ids: string[];
  source: Int32Array; target: Int32Array; weight: Float32Array; size: Float32Array; group: Int32Array };

/**
 * The summary as a graph: a node per scope (`scope:<name>`, an agent's when one is defined) and
 * per cluster (the largest `maxClusters`), the scope linked to its clusters, the clusters to one
 * another by their strongest links (`weight`: how many links). Nodes carry `notes` and a label
 * that says it ("deploy-* · 2,140"); the arrays are what the layout needs.
 */
export function clusterGraph(s: ClusterSummary, maxClusters = MAX_CLUSTERS): ClusterDrawing {
  const g = new Graph({ multi: true, type: 'directed', allowSelfLoops: false });
  const shownClusters = Math.min(s.clusters.length, maxClusters);
  const kept = (i: number) => i < shownClusters;
  // Loops, not Math.max(...xs): a spread of 100,000 values overflows the call stack.
  const maxNotes = largest([...s.clusters.slice(0, shownClusters).map((c) => c.notes), ...s.scopes.map((x) => x.notes)]);
  const ids: string[] = [];
  const size: number[] = [];
  const group: number[] = [];
  const groupOf = new Map<string, number>();
  const groupIndex = (scope: string) => { let k = groupOf.get(scope); if (k === undefined) { k = groupOf.size; groupOf.set(scope, k); } return k; };
  const add = (id: string, attrs: Record<string, unknown>, radius: number, scope: string) => {
    g.addNode(id, { x: Math.cos(ids.length) * 10, y: Math.sin(ids.length) * 10, ...attrs, size: radius });
    ids.push(id);
    size.push(radius);
    group.push(groupIndex(scope));
  };
  for (const x of s.scopes) {
    if (!x.notes) continue;
    add(`scope:${x.scope}`, { kind: 'scope', scope: x.scope, name: x.scope, notes: x.notes, degree: 0, agent: x.agent, memoryOff: x.memoryOff,
      label: `${x.scope} · ${x.notes.toLocaleString('en')} notes` }, clusterSize(x.notes, maxNotes, 8, 20), x.scope);
  }
  s.clusters.slice(0, shownClusters).forEach((c) => {
    const name = c.kind === 'entities' ? c.label : c.label.startsWith(`${c.scope} · `) ? c.label.slice(c.scope.length + 3) : c.label;
    // `degree`: its notes, so the canvas's data-hubs (extent.ts) lists the largest clusters (scopes: 0).
    add(c.id, { kind: 'cluster', clusterKind: c.kind, scope: c.scope || null, name, notes: c.notes, degree: c.notes, problems: c.problems, hubs: c.hubs,
      label: `${name} · ${c.notes.toLocaleString('en')}` }, clusterSize(c.notes, maxNotes), c.scope || '@');
  });
  const source: number[] = [];
  const target: number[] = [];
  const weight: number[] = [];
  const index = new Map(ids.map((id, i) => [id, i]));
  s.clusters.slice(0, shownClusters).forEach((c) => {
    const scope = index.get(`scope:${c.scope}`);
    const me = index.get(c.id)!;
    if (scope === undefined) return;
    g.addEdge(`scope:${c.scope}`, c.id, { status: null, member: true, weight: c.notes });
    source.push(scope); target.push(me); weight.push(2);
  });
  const maxLinks = largest(s.edgeLinks);
  for (const i of strongEdges(s, kept)) {
    const [a, b] = [s.clusters[s.edgeSources[i]].id, s.clusters[s.edgeTargets[i]].id];
    g.addEdge(a, b, { status: 'RESOLVED', weight: s.edgeLinks[i], share: s.edgeLinks[i] / maxLinks });
    source.push(index.get(a)!); target.push(index.get(b)!); weight.push(1 + 4 * Math.sqrt(s.edgeLinks[i] / maxLinks));
  }
  const hidden = s.clusters.length - shownClusters;
  const hiddenNotes = s.clusters.slice(shownClusters).reduce((n, c) => n + (c.kind === 'notes' ? c.notes : 0), 0);
  return { g, shown: shownClusters, hidden, hiddenNotes, ids, source: Int32Array.from(source), target: Int32Array.from(target),
    weight: Float32Array.from(weight), size: Float32Array.from(size), group: Int32Array.from(group) };
}

const CLUSTER_LINK = '#4a5260';
const ENTITIES = '#59a14f';
const SHARED = '#5d6673';

/** Colours of a summary drawing: each scope one of the palette's (hex: sigma's WebGL reads no hsl()), its clusters the same, links by their share. */
export function styleClusters(g: Graph): void {
  const colour = new Map<string, string>();
  g.forEachNode((_n, a) => { if (a.kind === 'scope' && a.scope !== 'shared') colour.set(String(a.scope), COMMUNITY_PALETTE[colour.size % COMMUNITY_PALETTE.length]); });
  g.forEachNode((_n, a) => {
    const scope = a.scope as string | null;
    a.color = a.clusterKind === 'entities' ? ENTITIES : scope === 'shared' ? SHARED : colour.get(scope ?? '') ?? SMALL_COMMUNITY;
    a.forceLabel = a.kind === 'scope';
    a.zIndex = a.kind === 'scope' ? 2 : 1;
  });
  g.forEachEdge((_e, a) => {
    if (a.member) { a.color = withAlpha('#9aa0a6', 0.35); a.size = 0.6; a.zIndex = 0; return; }
    const share = Number(a.share) || 0;
    a.color = withAlpha(CLUSTER_LINK, 0.12 + 0.5 * Math.sqrt(share));
    a.size = 0.4 + 4 * Math.sqrt(share);
    a.zIndex = 1;
  });
}

/** The status line of a summary: how much it sums up and what it leaves out. */
export function clusterStatus(s: ClusterSummary, d: ClusterDrawing): string {
  const n = (x: number) => x.toLocaleString('en');
  const scopes = s.scopes.filter((x) => x.notes).length;
  const more = d.hidden ? `; ${n(d.hidden)} more clusters of ${n(d.hiddenNotes)} notes not drawn` : '';
  return `${n(s.notes)} notes in ${n(scopes)} scopes and ${n(d.shown)} clusters, ${n(s.links)} links, ${n(s.problems)} problem links${more}. Click a cluster or scope for its notes.`;
}

/** The status line of a cluster's drawing: how many of its notes are drawn, and how many more there are. */
export function drillStatus(label: string, drawn: number, total: number): string {
  const n = (x: number) => x.toLocaleString('en');
  return drawn < total ? `${label}: the ${n(drawn)} best-linked of ${n(total)} notes, ${n(total - drawn)} more not drawn` : `${label}: ${n(total)} notes`;
}

/** A cluster's name for a status line: as a summary's node (`attrs`) says, else from its id. */
export function clusterTitle(id: string, attrs: Record<string, unknown> | null): string {
  if (attrs?.kind === 'scope') return `Scope ${String(attrs.name)}`;
  if (attrs?.kind === 'cluster') return attrs.scope ? `${String(attrs.scope)} · ${String(attrs.name)}` : String(attrs.name);
  return id.startsWith('scope:') ? `Scope ${id.slice(6)}` : id.replace(/^cluster:/, '');
}

/** The summary's legend: each scope's colour, name and notes (as styleClusters coloured them), the largest first. */
export function scopeLegend(g: Graph): { community: number; colour: string; size: number; name: string }[] {
  const out: { community: number; colour: string; size: number; name: string }[] = [];
  g.forEachNode((_n, a) => { if (a.kind === 'scope') out.push({ community: out.length, colour: String(a.color), size: Number(a.notes), name: String(a.scope) }); });
  return out.sort((x, y) => y.size - x.size || x.name.localeCompare(y.name));
}

/** The largest of `xs`, at least 1. */
export function largest(xs: readonly number[]): number {
  let most = 1;
  for (const x of xs) if (x > most) most = x;
  return most;
}
