// Which node labels the graph draws: no two drawn labels overlap. sigma's own label grid keeps a
// few labels per grid cell but never measures them, so long names in neighbouring cells (or
// forced ones) are drawn over each other. Here every candidate label is a measured box in screen
// pixels, and labels are placed greedily by priority: the selected node's always, then its
// neighbours', agents', nodes with problems, then the biggest nodes. A label whose usual place
// (right of its node) is taken tries left, below and above, as map labels do. Pure: boxes in,
// chosen places out.

export type Box = { left: number; top: number; right: number; bottom: number };
/** A label's box and the baseline its text is written on. */
export type Place = Box & { baseline: number };
/** A label that could be drawn: where it may go, best first (null: not there, e.g. off the drawing). */
export type LabelCandidate = { key: string; priority: number; always?: boolean; places: readonly (Box | null)[] };

/**
 * Where sigma's default label drawing puts a label (drawDiscNodeLabel: the text starts 3 px
 * right of the disc, its baseline a third of the font size below the node's centre). The box
 * spans the font's ascent and descent: most of an em above the baseline, a quarter below.
 */
export function labelBox(x: number, y: number, nodeSize: number, textWidth: number, fontSize: number): Place {
  return labelPlaces(x, y, nodeSize, textWidth, fontSize)[0];
}

/**
 * Where a label may go around its node, best first: right (sigma's place), left, below, above.
 * `farther`: four more, a line up or down on either side, for the few labels that matter most
 * (agents): zoomed out, the four nearest places of an agent were often all taken by others'.
 */
export function labelPlaces(x: number, y: number, nodeSize: number, textWidth: number, fontSize: number, farther = false): Place[] {
  const [ascent, descent] = [fontSize * 0.9, fontSize * 0.25];
  const beside = y + fontSize / 3;
  const below = y + nodeSize + 2 + ascent;
  const above = y - nodeSize - 2 - descent;
  const place = (left: number, baseline: number): Place =>
    ({ left, top: baseline - ascent, right: left + textWidth, bottom: baseline + descent, baseline });
  const [right, left] = [x + nodeSize + 3, x - nodeSize - 3 - textWidth];
  const near = [place(right, beside), place(left, beside), place(x - textWidth / 2, below), place(x - textWidth / 2, above)];
  if (!farther) return near;
  const line = fontSize * 1.4;  // a box is ~1.15 font sizes high: clear of the row beside it
  return [...near, place(right, beside - line), place(right, beside + line), place(left, beside - line), place(left, beside + line)];
}

/** Whether two boxes come closer than `gap` pixels (touching counts when gap > 0). */
export function intersects(a: Box, b: Box, gap = 0): boolean {
  return a.left < b.right + gap && b.left < a.right + gap && a.top < b.bottom + gap && b.top < a.bottom + gap;
}

export type LabelRank = { selected: boolean; neighbour: boolean; agent: boolean; problem: boolean; size: number; degree: number };

/** Tiers first (selected, its neighbours, agents, problems), then size, then degree. */
export function labelPriority(r: LabelRank): number {
  const tier = r.selected ? 4 : r.neighbour ? 3 : r.agent ? 2 : r.problem ? 1 : 0;
  return tier * 1e9 + Math.min(r.size, 1e4) * 1e4 + Math.min(r.degree, 9999);
}

const CELL = 64;

/** Boxes in a uniform grid of 64 px cells: which boxes are near one costs a few look-ups. */
class BoxGrid {
  private readonly cells = new Map<number, Box[]>();

  constructor(private readonly gap: number) {}

  add(box: Box): void {
    this.visit(box, (key) => {
      const boxes = this.cells.get(key);
      if (boxes) boxes.push(box);
      else this.cells.set(key, [box]);
      return false;
    });
  }

  /** Whether a box comes within the gap of one in the grid. */
  meets(box: Box): boolean {
    return this.visit(box, (key) => (this.cells.get(key) ?? []).some((other) => intersects(box, other, this.gap)));
  }

  private visit(box: Box, cell: (key: number) => boolean): boolean {
    const [x0, x1] = [Math.floor((box.left - this.gap) / CELL), Math.floor((box.right + this.gap) / CELL)];
    const [y0, y1] = [Math.floor((box.top - this.gap) / CELL), Math.floor((box.bottom + this.gap) / CELL)];
    for (let cx = x0; cx <= x1; cx++) for (let cy = y0; cy <= y1; cy++) if (cell((cx + 32768) * 65536 + cy + 32768)) return true;
    return false;
  }
}

/**
 * The labels to draw and where: greedily by priority (ties by key, so the answer does not
 * depend on the order candidates come in), each at its first place that keeps `gap` px from
 * every label placed already and covers no obstacle (the nodes' discs), else at its first place
 * clear of labels only, or left out. A label marked `always` is drawn at its first clear place,
 * else its first, whatever that covers. Answers key -> index in `places` of the one chosen.
 */
export function chooseLabels(candidates: readonly LabelCandidate[], gap = 2, obstacles: readonly Box[] = []): Map<string, number> {
  const order = [...candidates].sort((a, b) => Number(Boolean(b.always)) - Number(Boolean(a.always))
    || b.priority - a.priority || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  const labels = new BoxGrid(gap);
  const discs = new BoxGrid(0);
  for (const o of obstacles) discs.add(o);
  const chosen = new Map<string, number>();
  for (const c of order) {
    if (chosen.has(c.key)) continue;
    let at = c.places.findIndex((p) => p !== null && !labels.meets(p) && !discs.meets(p));
    if (at < 0) at = c.places.findIndex((p) => p !== null && !labels.meets(p));
    if (at < 0 && c.always) at = c.places.findIndex((p) => p !== null);
    const box = c.places[at];
    if (!box) continue;
    chosen.set(c.key, at);
    labels.add(box);
  }
  return chosen;
}

/**
 * Text widths of one font, as the sum of its characters' widths, each measured once: measureText
 * costs ~0.1 ms a string in a software-rendered page (430 ms for 3,000 names; the sum, 13 ms),
 * and a zoom at 10,000 nodes offers thousands of new names. Kerning makes real text narrower by
 * at most a fraction of a pixel (0.26 px over 3,000 names of the benchmark), so half a pixel is
 * added; wider is safe, the box just keeps a bit more room. Forgets all when the font changes,
 * and past `limit` strings, so a long session stays bounded.
 */
export class TextWidths {
  private font = '';
  private readonly chars = new Map<string, number>();
  private readonly widths = new Map<string, number>();

  constructor(private readonly measure: (text: string, font: string) => number, private readonly limit = 50_000) {}

  width(text: string, font: string): number {
    if (font !== this.font || this.widths.size >= this.limit) {
      if (font !== this.font) this.chars.clear();
      this.widths.clear();
      this.font = font;
    }
    let w = this.widths.get(text);
    if (w === undefined) {
      w = 0.5;
      for (const c of text) {
        let cw = this.chars.get(c);
        if (cw === undefined) { cw = this.measure(c, font); this.chars.set(c, cw); }
        w += cw;
      }
      this.widths.set(text, w);
    }
    return w;
  }
}
