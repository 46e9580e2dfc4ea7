// The summary's discs kept apart. ForceAtlas2 places clusters by their links, in graph units,
// while a disc's size is in screen pixels: a scope's many small clusters settled on top of
// one another (issue 42). So once the layout has settled, the page measures the discs as
// drawn and pushes apart those that overlap, on the screen (view.ts separates and redraws
// until none does). Pure: unit-tested.

/**
 * Pushes apart, in place, the discs (centres `x`, `y`, radii `r`, in screen pixels) that come
 * closer than their radii and `gap`: each overlapping pair moves apart along the line between
 * them, the smaller disc the more. At most `rounds` passes; returns the pairs still too close.
 */
export function pushApart(x: Float64Array, y: Float64Array, r: Float64Array, gap = 3, rounds = 300): number {
  const n = x.length;
  spread(x, y, r, gap);
  let left = 0;
  for (let round = 0; round < rounds; round++) {
    left = 0;
    for (let i = 0; i < n; i++) {
      for (let j = i + 1; j < n; j++) {
        let dx = x[j] - x[i];
        let dy = y[j] - y[i];
        const need = r[i] + r[j] + gap;
        const d2 = dx * dx + dy * dy;
        if (d2 >= need * need) continue;
        left++;
        let d = Math.sqrt(d2);
        if (d < 1e-6) {  // one on the other: apart in a direction of their own, the same each run
          const a = ((i * 73 + j * 151) % 360) * Math.PI / 180;
          [dx, dy, d] = [Math.cos(a), Math.sin(a), 1];
        }
        // A little past the need, so a pass ends with the pair apart despite rounding.
        const move = (need - d) * 1.05 / d;
        const share = (r[i] * r[i]) / (r[i] * r[i] + r[j] * r[j] || 1);  // the bigger disc moves less
        x[i] -= dx * move * (1 - share); y[i] -= dy * move * (1 - share);
        x[j] += dx * move * share; y[j] += dy * move * share;
      }
    }
    if (!left) return 0;
  }
  return overlaps(x, y, r, gap);
}

/**
 * Spreads the centres about their middle, keeping the shape, until the box they cover has room
 * for the discs (their squares' area, two and a half times): pairwise pushes in a pile with no room
 * only pass the overlap around. The screen's fit brings the picture back to size (view.ts).
 */
function spread(x: Float64Array, y: Float64Array, r: Float64Array, gap: number): void {
  const n = x.length;
  if (n < 2) return;
  let [left, right, top, bottom, need, mx, my] = [Infinity, -Infinity, Infinity, -Infinity, 0, 0, 0];
  for (let i = 0; i < n; i++) {
    left = Math.min(left, x[i]); right = Math.max(right, x[i]);
    top = Math.min(top, y[i]); bottom = Math.max(bottom, y[i]);
    need += (2 * r[i] + gap) ** 2;
    mx += x[i] / n; my += y[i] / n;
  }
  const w = Math.max(right - left, 1), h = Math.max(bottom - top, 1);
  const grow = Math.sqrt((2.5 * need) / (w * h));
  if (grow <= 1) return;
  for (let i = 0; i < n; i++) { x[i] = mx + (x[i] - mx) * grow; y[i] = my + (y[i] - my) * grow; }
}

/** The pairs of discs closer than their radii and `gap`. */
export function overlaps(x: ArrayLike<number>, y: ArrayLike<number>, r: ArrayLike<number>, gap = 0): number {
  let count = 0;
  for (let i = 0; i < x.length; i++) {
    for (let j = i + 1; j < x.length; j++) {
      const need = r[i] + r[j] + gap;
      if ((x[j] - x[i]) ** 2 + (y[j] - y[i]) ** 2 < need * need - 1e-6) count++;
    }
  }
  return count;
}
