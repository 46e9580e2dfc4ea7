// The whole-workspace picture's layout, run where it costs the page nothing: in a web worker
// (layoutworker.ts) for any graph past a few hundred nodes, in place for smaller ones (a worker's
// start-up would cost more than their layout). Either way the same steps (layoutrun.ts) and the
// same callbacks: communities, positions while it runs, positions once settled.
import { communities, LayoutRun, type LayoutInput } from './layoutrun';
import type { LayoutMessage, LayoutRequest } from './layoutworker';

// The worker's file, with its content hash (build.mjs defines it; a new build is a new URL).
declare const __LAYOUT_WORKER__: string;

/** Below this many nodes the layout runs in place: it takes a few milliseconds. */
export const IN_PLACE_NODES = 300;
/** The most a layout may run before it stops where it is (100,000 nodes cost ~1 s an iteration). */
export const LAYOUT_BUDGET_MS = 45_000;

export type Settled = { iterations: number; reason: string; ms: number; where: 'worker' | 'page'; level: 'nodes' | 'communities' };
export type LayoutCallbacks = {
  communities(community: Int32Array): void;
  /** New positions ([x0, y0, …]); call `drawn` once they are on screen for the next ones. */
  positions(positions: Float32Array, iterations: number, drawn: () => void): void;
  settled(positions: Float32Array, info: Settled): void;
};

export class LayoutDriver {
  private worker: Worker | null = null;
  private generation = 0;

  /** Starts laying out `input`; a layout already running is dropped (its callbacks never fire again). */
  start(input: { nodes: number; source: Int32Array; target: Int32Array; group: Int32Array; weight?: Float32Array; size?: Float32Array },
    on: LayoutCallbacks, worker = false): void {
    this.stop();
    const generation = ++this.generation;
    // `worker`: off the page however small (a few hundred clusters with weighted, sized discs take
    // a few hundred iterations: more than a frame's time on the page).
    if ((!worker && input.nodes <= IN_PLACE_NODES) || typeof Worker === 'undefined') {
      queueMicrotask(() => { if (generation === this.generation) inPlace(input, on); });
      return;
    }
    const w = new Worker(new URL(__LAYOUT_WORKER__, import.meta.url));
    this.worker = w;
    w.onmessage = (e: MessageEvent<LayoutMessage>) => {
      if (generation !== this.generation) return;
      const m = e.data;
      if (m.type === 'communities') on.communities(m.community);
      else if (m.type === 'positions') on.positions(m.positions, m.iterations, () => w.postMessage({ type: 'drawn' }));
      else {
        this.stop();
        on.settled(m.positions, { iterations: m.iterations, reason: m.reason, ms: m.ms, where: 'worker', level: m.level });
      }
    };
    w.onerror = (e) => { console.error(`the layout worker failed: ${e.message}`); };
    const request: LayoutRequest = { type: 'start', ...input, budgetMs: LAYOUT_BUDGET_MS };
    w.postMessage(request);
  }

  /** Ends the layout running, if any. */
  stop(): void {
    this.generation++;
    this.worker?.terminate();
    this.worker = null;
  }

  get running(): boolean {
    return this.worker !== null;
  }
}

function inPlace(input: LayoutInput, on: LayoutCallbacks): void {
  const t0 = performance.now();
  const community = communities(input);
  on.communities(community);
  const run = new LayoutRun(input, community);
  while (!run.step()) { /* a few hundred nodes: milliseconds */ }
  on.settled(run.positions, { iterations: run.convergence.iterations, reason: run.convergence.reason ?? 'converged', ms: performance.now() - t0, where: 'page', level: 'nodes' });
}
