// The whole-workspace layout in a web worker, so the page stays responsive while it runs:
// communities first (the page colours by them at once), then ForceAtlas2 until converged,
// positions sent whenever the page has drawn the last ones (so a slow page is never queued
// behind a backlog), and the final positions once settled. Built by build.mjs as its own
// classic-script file (a same-origin worker, as the page's CSP allows).
import { coarseLayout, COARSE_NODES, communities, LayoutRun } from './layoutrun';
import { Convergence } from './overviewmodel';

export type LayoutRequest = { type: 'start'; nodes: number; source: Int32Array; target: Int32Array; group: Int32Array; budgetMs: number;
  weight?: Float32Array; size?: Float32Array };
export type LayoutMessage =
  | { type: 'communities'; community: Int32Array; ms: number }
  | { type: 'positions'; positions: Float32Array; iterations: number }
  | { type: 'settled'; positions: Float32Array; iterations: number; reason: string; ms: number; level: 'nodes' | 'communities' };

type Ack = { type: 'drawn' };
const scope = self as unknown as { postMessage(m: LayoutMessage, transfer?: Transferable[]): void; onmessage: ((e: MessageEvent<LayoutRequest | Ack>) => void) | null };
let pageReady = true;
let running = false;

scope.onmessage = (e) => {
  if (e.data.type === 'drawn') { pageReady = true; return; }
  if (running) return;  // one layout per worker: the page makes a new worker for a new graph
  running = true;
  void run(e.data);
};

async function run(request: LayoutRequest): Promise<void> {
  const t0 = performance.now();
  const community = communities(request);
  scope.postMessage({ type: 'communities', community: community.slice(), ms: performance.now() - t0 });
  if (request.nodes > COARSE_NODES) {
    const { positions, run } = coarseLayout(request, community);
    const c = run.convergence;
    scope.postMessage({ type: 'settled', positions, iterations: c.iterations, reason: c.reason ?? 'converged', ms: performance.now() - t0, level: 'communities' }, [positions.buffer]);
    return;
  }
  const layout = new LayoutRun(request, community, new Convergence());
  // The seed (each community a disc) at once: the page shows the groups while the forces work.
  const seed = layout.positions.slice();
  scope.postMessage({ type: 'positions', positions: seed, iterations: 0 }, [seed.buffer]);
  pageReady = false;
  let sent = performance.now();
  for (;;) {
    // A slice of iterations, then a turn of the event loop: the page's acks get in.
    const slice = performance.now();
    let settled = false;
    while (!settled && performance.now() - slice < 50) settled = layout.step();
    if (!settled && performance.now() - t0 > request.budgetMs) { layout.convergence.finish('budget'); settled = true; }
    if (settled) {
      const c = layout.convergence;
      scope.postMessage({ type: 'settled', positions: layout.positions.slice(), iterations: c.iterations, reason: c.reason ?? 'converged', ms: performance.now() - t0, level: 'nodes' });
      return;
    }
    if (pageReady && performance.now() - sent > 100) {
      pageReady = false;
      sent = performance.now();
      const positions = layout.positions.slice();
      scope.postMessage({ type: 'positions', positions, iterations: layout.convergence.iterations }, [positions.buffer]);
    }
    await new Promise((r) => setTimeout(r, 0));
  }
}
