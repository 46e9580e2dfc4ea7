// The summary's discs apart on the screen (packing.ts pushes; this measures and moves sigma's
// nodes). Once the layout has settled: the discs as drawn (graph to screen is affine: three
// points give it), pushed apart in screen pixels, put back in graph units; then the screen's
// fit (sigma rescales to the new extent) shrinks the picture, and the discs shrink as much,
// so none overlaps at the first sight of the whole, whatever the layout left.
import type Sigma from 'sigma';
import { overlaps, pushApart } from './packing';

/** The gap (px) left between two discs. */
export const DISC_GAP = 3;

type Affine = { ox: number; oy: number; xx: number; xy: number; yx: number; yy: number };

function affine(sigma: Sigma): Affine {
  const o = sigma.graphToViewport({ x: 0, y: 0 });
  const ex = sigma.graphToViewport({ x: 1, y: 0 });
  const ey = sigma.graphToViewport({ x: 0, y: 1 });
  return { ox: o.x, oy: o.y, xx: ex.x - o.x, xy: ex.y - o.y, yx: ey.x - o.x, yy: ey.y - o.y };
}

/** Moves (and if the fit needs it, shrinks) the drawn discs of `sigma` until none overlaps; the overlaps found first. */
export function separateDiscs(sigma: Sigma, gap = DISC_GAP): number {
  const g = sigma.getGraph();
  sigma.refresh();  // the normalisation of the positions as they are now
  const t = affine(sigma);
  const scale = sigma.scaleSize(1);
  const ids = g.nodes();
  const n = ids.length;
  const x = new Float64Array(n), y = new Float64Array(n), r = new Float64Array(n);
  ids.forEach((id, i) => {
    const a = g.getNodeAttributes(id);
    x[i] = t.ox + t.xx * a.x + t.yx * a.y; y[i] = t.oy + t.xy * a.x + t.yy * a.y; r[i] = Number(a.size) * scale;
  });
  const found = overlaps(x, y, r, gap);
  if (!found) return 0;
  pushApart(x, y, r, gap);
  const det = t.xx * t.yy - t.xy * t.yx;
  ids.forEach((id, i) => {
    const a = g.getNodeAttributes(id);
    const [dx, dy] = [x[i] - t.ox, y[i] - t.oy];
    a.x = (t.yy * dx - t.yx * dy) / det; a.y = (-t.xy * dx + t.xx * dy) / det;
  });
  sigma.refresh();
  const now = affine(sigma);
  const shrink = Math.hypot(now.xx, now.xy) / Math.hypot(t.xx, t.xy);  // the fit's, uniform
  if (shrink < 1) {
    g.forEachNode((_id, a) => { a.size = Number(a.size) * shrink; });
    sigma.refresh();
  }
  return found;
}

/** The drawn discs as sigma draws them, `[[id, x, y, radius], …]` in CSS pixels (tests check none overlaps). */
export function drawnDiscs(sigma: Sigma): [string, number, number, number][] {
  const out: [string, number, number, number][] = [];
  sigma.getGraph().forEachNode((node) => {
    const d = sigma.getNodeDisplayData(node);
    if (!d || d.hidden) return;
    const p = sigma.framedGraphToViewport(d);
    out.push([node, Math.round(p.x * 10) / 10, Math.round(p.y * 10) / 10, Math.round(sigma.scaleSize(d.size) * 10) / 10]);
  });
  return out;
}
