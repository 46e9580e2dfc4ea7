// The whole-workspace layout's work, apart from where it runs: communities (Louvain), a seed
// (each community a disc, as clusterLayout), then ForceAtlas2 iterations (Barnes-Hut past a few
// hundred nodes) until Convergence says the picture has stopped changing. The web worker
// (layoutworker.ts) runs it off the page's thread; unit tests run it in node.
import Graph from 'graphology';
import louvain from 'graphology-communities-louvain';
import iterate from 'graphology-layout-forceatlas2/iterate.js';
import { clusterLayout } from './graphmodel';
import { Convergence, movement } from './overviewmodel';

const PPN = 10;  // ForceAtlas2's matrices: 10 numbers per node, 3 per edge (graphology-layout-forceatlas2/iterate.js)
const PPE = 3;

export type LayoutInput = { nodes: number; source: ArrayLike<number>; target: ArrayLike<number> };

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
      this.nodeMatrix[o + 8] = 1;  // size
    }
    this.edgeMatrix = new Float32Array(kept.length * PPE);
    kept.forEach((e, k) => {
      this.edgeMatrix[k * PPE] = input.source[e] * PPN;
      this.edgeMatrix[k * PPE + 1] = input.target[e] * PPN;
      this.edgeMatrix[k * PPE + 2] = 1;
    });
    this.settings = fa2Settings(n);
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
