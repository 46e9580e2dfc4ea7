// The whole-workspace layout's work, apart from where it runs: communities (Louvain), a seed
// (each community a disc, as clusterLayout), then ForceAtlas2 iterations (Barnes-Hut past a few
// hundred nodes) until Convergence says the picture has stopped changing. The web worker
// (worker.ts) runs it off the page's thread; unit tests run it in node.
import Graph from 'graphology';
import louvain from 'graphology-communities-louvain';
import iterate from 'graphology-layout-forceatlas2/iterate.js';
import { clusterLayout } from '../model';
import { Convergence, movement } from './model';

const PPN = 10;  // ForceAtlas2's matrices: 10 numbers per node, 3 per edge (graphology-layout-forceatlas2/iterate.js)
const PPE = 3;

/**
 * The graph to lay out: `nodes` nodes (0..nodes-1) and its links; optionally each link's weight,
 * each node's size (for anti-collision: no two discs overlap) and group (the scope each note is
 * in: tiny communities are gathered by it).
 */
export type LayoutInput = { nodes: number; source: ArrayLike<number>; target: ArrayLike<number>;
  weight?: ArrayLike<number>; size?: ArrayLike<number>; group?: ArrayLike<number> };

/** Past this many nodes the layout is of communities, each a disc of its members (see coarseLayout). */
export const COARSE_NODES = 20_000;
// A community this small has no shape of its own: its members join their group's disc.
const TINY_COMMUNITY = 3;

/** Louvain communities of an undirected, simple view of the graph (deterministic: a seeded generator). */
export function communities(input: LayoutInput): Int32Array {
  const g = new Graph({ type: 'undirected', multi: false, allowSelfLoops: false });
  for (let i = 0; i < input.nodes; i++) g.addNode(i);
  for (let e = 0; e < input.source.length; e++) {
    const [s, t] = [input.source[e], input.target[e]];
    if (s !== t) g.mergeEdge(s, t);
  }
  let seed = 42;
  const rng = () => { seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0; return seed / 2 ** 32; };
  const found = louvain(g, { rng, resolution: 1 });
  const out = new Int32Array(input.nodes);
  for (let i = 0; i < input.nodes; i++) out[i] = found[i] ?? i;
  return out;
}

/** ForceAtlas2's settings for a graph this size (as its inferSettings), Barnes-Hut past 300 nodes. */
export function fa2Settings(nodes: number): Record<string, number | boolean> {
  return {
    linLogMode: false, outboundAttractionDistribution: false, adjustSizes: false, edgeWeightInfluence: 1,
    scalingRatio: nodes > 2000 ? 10 : 2, strongGravityMode: nodes > 2000, gravity: nodes > 2000 ? 0.05 : 1,
    slowDown: 1 + Math.log(Math.max(1, nodes)), barnesHutOptimize: nodes > 300, barnesHutTheta: 0.6,
  };
}

export class LayoutRun {
  readonly convergence: Convergence;
  private readonly nodeMatrix: Float32Array;
  private readonly edgeMatrix: Float32Array;
  private readonly settings: Record<string, number | boolean>;
  private before: Float32Array;
  /** [x0, y0, x1, y1, …] now. */
  readonly positions: Float32Array;

  constructor(input: LayoutInput, community: ArrayLike<number>, convergence = new Convergence()) {
    this.convergence = convergence;
    const n = input.nodes;
    const degree = new Int32Array(n);
    const kept: number[] = [];
    for (let e = 0; e < input.source.length; e++) {
      const [s, t] = [input.source[e], input.target[e]];
      if (s === t) continue;
      degree[s]++;
      degree[t]++;
      kept.push(e);
    }
    const seed = clusterLayout(Array.from(community, (c) => ({ cluster: String(c) })));
    this.nodeMatrix = new Float32Array(n * PPN);
    for (let i = 0; i < n; i++) {
      const o = i * PPN;
      this.nodeMatrix[o] = seed[i].x;
      this.nodeMatrix[o + 1] = seed[i].y;
      this.nodeMatrix[o + 6] = 1 + degree[i];  // mass
      this.nodeMatrix[o + 7] = 1;  // convergence
      this.nodeMatrix[o + 8] = input.size?.[i] ?? 1;  // size
    }
    this.edgeMatrix = new Float32Array(kept.length * PPE);
    kept.forEach((e, k) => {
      this.edgeMatrix[k * PPE] = input.source[e] * PPN;
      this.edgeMatrix[k * PPE + 1] = input.target[e] * PPN;
      this.edgeMatrix[k * PPE + 2] = input.weight?.[e] ?? 1;
    });
    this.settings = { ...fa2Settings(n), adjustSizes: input.size !== undefined };
    this.positions = new Float32Array(n * 2);
    this.copy(this.positions);
    this.before = this.positions.slice();
  }

  /** One ForceAtlas2 iteration; answers whether the layout is settled. */
  step(): boolean {
    if (this.convergence.settled) return true;
    iterate(this.settings, this.nodeMatrix, this.edgeMatrix);
    this.before.set(this.positions);
    this.copy(this.positions);
    const { meanMove, extent } = movement(this.before, this.positions);
    return this.convergence.step(meanMove, extent);
  }

  private copy(into: Float32Array): void {
    const n = into.length >> 1;
    for (let i = 0; i < n; i++) {
      into[2 * i] = this.nodeMatrix[i * PPN];
      into[2 * i + 1] = this.nodeMatrix[i * PPN + 1];
    }
  }
}

/**
 * The layout of a graph too big for ForceAtlas2 to converge in a person's patience (100,000
 * nodes: a second or more an iteration): its communities are laid out as one node each (their
 * links the count of links between them, their size their disc's, so no two discs overlap),
 * then each community's members fill its disc, best-connected at the centre. Communities of
 * fewer than three members are gathered by `group` (scope). Answers [x0, y0, …] and the
 * community-level run (its convergence says how it ended).
 */
export function coarseLayout(input: LayoutInput, community: ArrayLike<number>): { positions: Float32Array; run: LayoutRun } {
  const n = input.nodes;
  const count = new Map<number, number>();
  for (let i = 0; i < n; i++) count.set(community[i], (count.get(community[i]) ?? 0) + 1);
  // Each node's block: its community, or its group's bucket when the community is tiny.
  const index = new Map<string, number>();
  const block = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    const key = (count.get(community[i]) ?? 0) < TINY_COMMUNITY ? `g${input.group?.[i] ?? 0}` : `c${community[i]}`;
    let b = index.get(key);
    if (b === undefined) { b = index.size; index.set(key, b); }
    block[i] = b;
  }
  const blocks = index.size;
  const members: number[][] = Array.from({ length: blocks }, () => []);
  for (let i = 0; i < n; i++) members[block[i]].push(i);
  const links = new Map<number, number>();
  for (let e = 0; e < input.source.length; e++) {
    const [a, b] = [block[input.source[e]], block[input.target[e]]];
    if (a === b) continue;
    const key = a < b ? a * blocks + b : b * blocks + a;
    links.set(key, (links.get(key) ?? 0) + 1);
  }
  const source: number[] = [];
  const target: number[] = [];
  const weight: number[] = [];
  for (const [key, w] of links) { source.push(Math.floor(key / blocks)); target.push(key % blocks); weight.push(w); }
  const radius = members.map((m) => 2 * Math.sqrt(m.length + 0.5));
  const run = new LayoutRun({ nodes: blocks, source, target, weight, size: radius }, Array.from({ length: blocks }, (_, b) => b),
    new Convergence(0.0005, 10, 30, 3000));
  while (!run.step()) { /* a few hundred communities: fast */ }
  const degree = new Int32Array(n);
  for (let e = 0; e < input.source.length; e++) { degree[input.source[e]]++; degree[input.target[e]]++; }
  const positions = new Float32Array(n * 2);
  const golden = Math.PI * (3 - Math.sqrt(5));
  members.forEach((m, b) => {
    m.sort((x, y) => degree[y] - degree[x] || x - y);
    const [cx, cy] = [run.positions[2 * b], run.positions[2 * b + 1]];
    m.forEach((node, j) => {
      const r = 2 * Math.sqrt(j + 0.5);
      positions[2 * node] = cx + Math.cos(j * golden) * r;
      positions[2 * node + 1] = cy + Math.sin(j * golden) * r;
    });
  });
  return { positions, run };
}
