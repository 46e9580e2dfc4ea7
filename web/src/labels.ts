// Which node labels the graph draws: no two drawn labels overlap. sigma's own label grid keeps a
// few labels per grid cell but never measures them, so long names in neighbouring cells (or
// forced ones) are drawn over each other. Here every candidate label is a measured box in screen
// pixels, and boxes are taken greedily by priority: the selected node's always, then its
// neighbours', agents', nodes with problems, then the biggest nodes. Pure: boxes in, keys out.

export type Box = { left: number; top: number; right: number; bottom: number };
export type LabelBox = Box & { key: string; priority: number; always?: boolean };

/**
 * Where sigma's default label drawing puts a label (drawDiscNodeLabel: the text starts 3 px
 * right of the disc, its baseline a third of the font size below the node's centre). The box
 * spans the font's ascent and descent: most of an em above the baseline, a quarter below.
 */
export function labelBox(x: number, y: number, nodeSize: number, textWidth: number, fontSize: number): Box {
  const left = x + nodeSize + 3;
  const baseline = y + fontSize / 3;
  return { left, top: baseline - fontSize * 0.9, right: left + textWidth, bottom: baseline + fontSize * 0.25 };
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

/**
 * The labels to draw: greedily by priority (ties by key, so the answer does not depend on the
 * order boxes come in), each kept unless it comes within `gap` px of one already kept. Boxes
 * marked `always` are kept whatever they overlap. A uniform grid of 64 px cells finds the kept
 * boxes near a candidate, so thousands of candidates cost a few milliseconds.
 */
export function chooseLabels(boxes: readonly LabelBox[], gap = 2): Set<string> {
  const order = [...boxes].sort((a, b) => Number(Boolean(b.always)) - Number(Boolean(a.always))
    || b.priority - a.priority || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  const grid = new Map<string, Box[]>();
  const chosen = new Set<string>();
  for (const box of order) {
    if (chosen.has(box.key)) continue;
    const x0 = Math.floor((box.left - gap) / CELL);
    const x1 = Math.floor((box.right + gap) / CELL);
    const y0 = Math.floor((box.top - gap) / CELL);
    const y1 = Math.floor((box.bottom + gap) / CELL);
    let free = true;
    for (let cx = x0; free && cx <= x1; cx++) {
      for (let cy = y0; free && cy <= y1; cy++) {
        for (const other of grid.get(`${cx},${cy}`) ?? []) if (intersects(box, other, gap)) { free = false; break; }
      }
    }
    if (!free && !box.always) continue;
    chosen.add(box.key);
    for (let cx = x0; cx <= x1; cx++) {
      for (let cy = y0; cy <= y1; cy++) {
        const cell = grid.get(`${cx},${cy}`);
        if (cell) cell.push(box);
        else grid.set(`${cx},${cy}`, [box]);
      }
    }
  }
  return chosen;
}

/**
 * Text widths of one font, measured once per string (measureText costs microseconds; a 10,000
 * node drawing asks for the same names again at each camera stop). Forgets all when the font
 * changes, and everything past `limit` strings so a long session stays bounded.
 */
export class TextWidths {
  private font = '';
  private readonly widths = new Map<string, number>();

  constructor(private readonly measure: (text: string, font: string) => number, private readonly limit = 50_000) {}

  width(text: string, font: string): number {
    if (font !== this.font || this.widths.size >= this.limit) { this.widths.clear(); this.font = font; }
    let w = this.widths.get(text);
    if (w === undefined) { w = this.measure(text, font); this.widths.set(text, w); }
    return w;
  }
}
