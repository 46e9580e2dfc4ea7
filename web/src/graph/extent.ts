// Two things the graph view does to sigma itself, apart from view.ts so that stays a size a
// reader can hold: no hover look-ups while the drawing moves, and where the drawn nodes
// are, written on the canvas for the tests and the bench.
import type Sigma from 'sigma';
import { drawnDiscs } from './overview/discs';

export { separateDiscs } from './overview/discs';

/**
 * No hover look-ups while the camera is dragged or gliding: each one reads a pixel back from
 * the GPU, which waits for the frame being drawn (with 10,000 nodes on a software renderer,
 * most of a frame's time), and nothing can be hovered while the drawing moves anyway.
 */
export function quietWhileDragging(sigma: Sigma): void {
  const captor = sigma.getMouseCaptor();
  for (const hover of captor.listeners('mousemove') as ((e: unknown) => void)[]) {
    captor.removeListener('mousemove', hover);
    captor.on('mousemove', (e) => { if (!captor.isMouseDown && !sigma.getCamera().isAnimated()) hover(e); });
  }
}

/**
 * The box the drawn nodes cover, in CSS pixels of the drawing, on the canvas as
 * `data-extent="left,top,right,bottom"` (tests check nothing is drawn off it or under the
 * legend), and the best-connected nodes' places, `data-hubs` = JSON [[id, kind, x, y, degree], …]
 * (tests click them; `count` of them), and a small drawing's discs (`data-discs`, discs.ts). Not while the camera moves: it is read when the drawing is still.
 */
export function noteExtent(sigma: Sigma, canvas: HTMLElement, count: number): void {
  if (sigma.getMouseCaptor().isMoving || sigma.getCamera().isAnimated()) return;
  let [left, top, right, bottom] = [Infinity, Infinity, -Infinity, -Infinity];
  const hubs: [string, string, number, number, number][] = [];  // the best-connected drawn nodes: id, kind, x, y, degree
  sigma.getGraph().forEachNode((node, a) => {
    const d = sigma.getNodeDisplayData(node);
    if (!d || d.hidden) return;
    const p = sigma.framedGraphToViewport(d);
    const r = sigma.scaleSize(d.size);
    left = Math.min(left, p.x - r); right = Math.max(right, p.x + r);
    top = Math.min(top, p.y - r); bottom = Math.max(bottom, p.y + r);
    const degree = Number(a.degree) || 0;
    if (hubs.length < count || degree > hubs[count - 1][4]) {
      hubs.push([node, String(a.kind), Math.round(p.x), Math.round(p.y), degree]);
      hubs.sort((x, y) => y[4] - x[4]).splice(count);
    }
  });
  canvas.dataset.extent = Number.isFinite(left) ? [left, top, right, bottom].map((v) => v.toFixed(1)).join(',') : '';
  canvas.dataset.hubs = JSON.stringify(hubs);
  // The summary's discs only (a few hundred), not a cluster's notes: listing 1,000 at each still
  // frame cost the drill-down 150 ms (a CPU profile of opening a cluster).
  if (canvas.dataset.level === 'clusters') canvas.dataset.discs = JSON.stringify(drawnDiscs(sigma));
  else delete canvas.dataset.discs;
}
