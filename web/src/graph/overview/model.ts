// How the whole-workspace picture looks and when its layout is done: colours by community,
// size by degree, edge alpha by density, which labels matter, and the layout's convergence
// test. Pure (no DOM, no sigma, no worker) so each rule is unit-tested; the worker
// (worker.ts) and the view (layout.ts, ../view.ts) share them.

/** Distinct colours for the largest communities (Tableau 10 and its lighter half); the rest share a grey. */
export const COMMUNITY_PALETTE = [
  '#4e79a7', '#f28e2b', '#59a14f', '#b07aa1', '#76b7b2', '#edc948', '#9c755f', '#ff9da7',
  '#a0cbe8', '#ffbe7d', '#8cd17d', '#d4a6c8', '#86bcb6', '#f1ce63', '#d7b5a6', '#79706e',
];
export const SMALL_COMMUNITY = '#c4c8cf';

export type CommunityLegend = { community: number; colour: string; size: number; name: string };

/**
 * A colour per community: the largest ones (by members; ties to the lower id, so the choice is
 * stable) get the palette in order, the others one grey (a thousand hues say nothing). The
 * legend names each coloured community after its best-connected member.
 */
export function communityColours(community: ArrayLike<number>, degree: ArrayLike<number>, names: ArrayLike<string>,
  palette: readonly string[] = COMMUNITY_PALETTE): { colours: string[]; legend: CommunityLegend[] } {
  const size = new Map<number, number>();
  const hub = new Map<number, number>();
  for (let i = 0; i < community.length; i++) {
    const c = community[i];
    size.set(c, (size.get(c) ?? 0) + 1);
    const h = hub.get(c);
    if (h === undefined || degree[i] > degree[h]) hub.set(c, i);
  }
  const ranked = [...size.entries()].filter(([, n]) => n > 1).sort((a, b) => b[1] - a[1] || a[0] - b[0]).slice(0, palette.length);
  const colourOf = new Map<number, string>(ranked.map(([c], k) => [c, palette[k]]));
  const colours = Array.from(community, (c) => colourOf.get(c) ?? SMALL_COMMUNITY);
  const legend = ranked.map(([c, n], k) => ({ community: c, colour: palette[k], size: n, name: names[hub.get(c)!] }));
  return { colours, legend };
}

/**
 * A node's size from its degree, scaled so the best-connected node is `max` and a leaf `min`;
 * radius grows with degree to the power 1.5, so in a workspace of notes of much the same degree
 * the many stay small dots and only the hubs stand out (and pass the labels' size threshold).
 */
export function degreeSize(degree: number, maxDegree: number, min = 1.2, max = 12): number {
  if (maxDegree <= 0 || degree <= 0) return min;
  return min + (max - min) * (Math.min(degree, maxDegree) / maxDegree) ** 1.5;
}

/**
 * How opaque each edge is drawn: with a few links each is clear; with many, each one is faint
 * and only bundles of them read as a shade, so density shows where a hairball would.
 * Falls with the square root of the links per pixel of drawing.
 */
export function edgeAlpha(edges: number, area = 1400 * 860): number {
  if (edges <= 0) return 0.6;
  return Math.max(0.03, Math.min(0.6, 0.6 * Math.sqrt((area / 400) / edges)));
}

/**
 * `#rrggbb` at `alpha`, premultiplied, as sigma's WebGL layers blend (ONE, ONE_MINUS_SRC_ALPHA):
 * a plain rgba() there adds the full colour and a faint dark link comes out white.
 */
export function withAlpha(hex: string, alpha: number): string {
  const n = parseInt(hex.slice(1), 16);
  const a = Math.max(0, Math.min(1, alpha));
  const c = (v: number) => Math.round(v * a);
  return `rgba(${c((n >> 16) & 255)}, ${c((n >> 8) & 255)}, ${c(n & 255)}, ${Math.round(a * 1000) / 1000})`;
}

/**
 * Which nodes may be labelled in a big drawing: the `count` best-connected (ties to the lower
 * index). The label placer then draws as many of them as fit apart at the zoom shown; zoomed in,
 * the smaller ones pass its size threshold. A 100,000-node drawing offers no more than this many.
 */
export function importantNodes(degree: ArrayLike<number>, count: number): Set<number> {
  const order = Array.from({ length: degree.length }, (_, i) => i);
  order.sort((a, b) => degree[b] - degree[a] || a - b);
  return new Set(order.slice(0, Math.max(0, count)));
}

/**
 * When a force layout is done: it has run `minIterations`, and for `patience` checks in a row
 * the nodes moved, on average, less than `epsilon` of the drawing's extent per iteration (it
 * has stopped changing the picture); or it reached `maxIterations` (a bound on the work, for
 * graphs that jitter forever). Fed each iteration's mean move and extent.
 */
export class Convergence {
  iterations = 0;
  private calm = 0;
  settled = false;
  reason: 'converged' | 'budget' | null = null;

  constructor(readonly epsilon = 0.0005, readonly patience = 10, readonly minIterations = 30, readonly maxIterations = 2000) {}

  /** Records one iteration; answers whether the layout is now settled. */
  step(meanMove: number, extent: number): boolean {
    if (this.settled) return true;
    this.iterations++;
    const relative = extent > 0 ? meanMove / extent : 0;
    this.calm = Number.isFinite(relative) && relative < this.epsilon ? this.calm + 1 : 0;
    if (this.iterations >= this.minIterations && this.calm >= this.patience) this.finish('converged');
    else if (this.iterations >= this.maxIterations) this.finish('budget');
    return this.settled;
  }

  /** Ends the run (`budget`: out of time, as the worker's clock says). */
  finish(reason: 'converged' | 'budget'): void {
    this.settled = true;
    this.reason = reason;
  }
}

/** The mean distance each node moved between two position arrays ([x0, y0, x1, y1, …]), and the extent (the larger side of their box) of the second. */
export function movement(before: ArrayLike<number>, after: ArrayLike<number>): { meanMove: number; extent: number } {
  const n = after.length >> 1;
  let sum = 0;
  let [minX, minY, maxX, maxY] = [Infinity, Infinity, -Infinity, -Infinity];
  for (let i = 0; i < n; i++) {
    const x = after[2 * i];
    const y = after[2 * i + 1];
    sum += Math.hypot(x - before[2 * i], y - before[2 * i + 1]);
    if (x < minX) minX = x;
    if (x > maxX) maxX = x;
    if (y < minY) minY = y;
    if (y > maxY) maxY = y;
  }
  return { meanMove: n ? sum / n : 0, extent: n ? Math.max(maxX - minX, maxY - minY) : 0 };
}
