// sigma's side of label placement (labels.ts decides). sigma draws no labels itself
// (`renderLabels: false`: its grid would offer every node to a label function at each frame);
// after each frame this draws the chosen labels, each at the place chosen for it, on sigma's
// label layer. The choice is made again at a still frame whose camera, size, threshold or data
// changed: a pan or zoom keeps the last choice (big drawings hide labels while moving anyway),
// so moving frames cost what they did. Big drawings (those that hide labels while moving) choose
// in a task of their own once the camera has rested 100 ms, so a pause in a zoom costs no
// placement and a still frame no more than it did; their labels show once chosen.
import type Sigma from 'sigma';
import { chooseLabels, labelPlaces, labelPriority, TextWidths, type Box, type LabelCandidate } from '../labels';

// sigma's label margins: nodes this far off the drawing may still label it.
const X_MARGIN = 150;
const Y_MARGIN = 50;
// Dots smaller than this (radius, px) are no obstacle to a label: text over them hides little,
// and a zoomed-out 10,000-node drawing is thousands of them.
const MIN_DISC = 2.5;
// The drawn boxes the page exposes for tests (data-labels); a drawing shows far fewer.
const EXPOSED = 2000;
const SETTLE_MS = 100;
// The discs labels keep off, at most (the largest): a zoomed-out 100,000-node drawing has tens
// of thousands over the label threshold, and each label would test the hundreds in its cells.
const MAX_DISCS = 4000;

type Settings = ReturnType<Sigma['getSettings']>;

export class LabelPlacer {
  private sigma: Sigma | null = null;
  private chosen = new Map<string, number>();
  private placedFor = '';
  private version = 0;
  private dropped = 0;
  private placements = 0;
  private timer: number | undefined;
  private exposed = '';
  private readonly widths: TextWidths;

  /**
   * `selected`: the node whose label always shows (its neighbours' labels come next);
   * `hiddenTest`: whether the filters hide a node (as sigma's node reducer says).
   */
  constructor(private readonly canvas: HTMLElement, private readonly selected: () => string | null,
    private readonly hiddenTest: () => (node: string, attrs: Record<string, unknown>) => boolean) {
    const measure = document.createElement('canvas').getContext('2d');
    this.widths = new TextWidths((text, font) => {
      if (!measure) return text.length * 7;
      measure.font = font;
      return measure.measureText(text).width;
    });
  }

  /** Draws `sigma`'s labels from now on (its own setting `renderLabels` must be false). */
  attach(sigma: Sigma): void {
    this.sigma = sigma;
    sigma.on('afterRender', () => {
      const moving = this.moving();
      const big = sigma.getSetting('hideLabelsOnMove');
      if (moving && big) return;
      if (!moving && this.keyNow() !== this.placedFor) {
        if (big) { this.settle(); return; }
        this.place();
      }
      this.draw(!moving);
    });
  }

  /** Chooses and draws the labels once the camera has rested (sigma cleared them at this frame). */
  private settle(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = window.setTimeout(() => {
      this.timer = undefined;
      const sigma = this.sigma;
      if (!sigma || this.moving()) return;  // the next still frame waits again
      this.place();
      const { width, height } = sigma.getDimensions();
      sigma.getCanvases().labels?.getContext('2d')?.clearRect(0, 0, width, height);
      this.draw(true);
    }, SETTLE_MS);
  }

  /** The graph, its looks, the filters or the selection changed: choose again at the next frame. */
  invalidate(): void {
    this.version++;
  }

  private moving(): boolean {
    const sigma = this.sigma;
    if (!sigma) return false;
    const captor = sigma.getMouseCaptor();
    return sigma.getCamera().isAnimated() || captor.isMoving || captor.draggedEvents > 0 || captor.currentWheelDirection !== 0;
  }

  /** What the choice depends on: the camera, the drawing's size, the size threshold, the data. */
  private keyNow(): string {
    const sigma = this.sigma;
    if (!sigma) return '';
    const camera = sigma.getCamera().getState();
    const { width, height } = sigma.getDimensions();
    const threshold = sigma.getSetting('labelRenderedSizeThreshold');
    return `${camera.x},${camera.y},${camera.ratio},${camera.angle}|${width}x${height}|${threshold}|${this.version}|${sigma.getGraph().order}`;
  }

  private place(): void {
    const sigma = this.sigma;
    if (!sigma) return;
    const settings = sigma.getSettings();
    const { width, height } = sigma.getDimensions();
    const threshold = settings.labelRenderedSizeThreshold;
    const key = this.keyNow();
    if (key === this.placedFor) return;
    performance.mark('labels:start');
    this.placedFor = key;
    const graph = sigma.getGraph();
    const selected = this.selected();
    const neighbours = new Set<string>();
    if (selected !== null && graph.hasNode(selected)) graph.forEachNeighbor(selected, (n) => { neighbours.add(n); });
    const font = fontOf(settings);
    const candidates: LabelCandidate[] = [];
    const discs: Box[] = [];  // labels keep off the nodes where they can
    // Graph to screen is affine (sigma's normalisation, then the camera): three points give it,
    // and each node then costs a few multiplications, not a copy of its display data (at 10,000
    // nodes that copy was most of the time).
    const o = sigma.graphToViewport({ x: 0, y: 0 });
    const ex = sigma.graphToViewport({ x: 1, y: 0 });
    const ey = sigma.graphToViewport({ x: 0, y: 1 });
    const [xx, xy, yx, yy] = [ex.x - o.x, ex.y - o.y, ey.x - o.x, ey.y - o.y];
    const scale = sigma.scaleSize(1);
    const hidden = this.hiddenTest();
    graph.forEachNode((node, attrs) => {
      if (hidden(node, attrs)) return;
      const [gx, gy] = [Number(attrs.x), Number(attrs.y)];
      const p = { x: o.x + xx * gx + yx * gy, y: o.y + xy * gx + yy * gy };
      if (p.x < -X_MARGIN || p.x > width + X_MARGIN || p.y < -Y_MARGIN || p.y > height + Y_MARGIN) return;
      const size = Number(attrs.size) * scale;
      if (size >= MIN_DISC && p.x + size > 0 && p.x - size < width && p.y + size > 0 && p.y - size < height) {
        discs.push({ left: p.x - size, top: p.y - size, right: p.x + size, bottom: p.y + size });
      }
      const label = attrs.label as string | null | undefined;
      if (!label || (!attrs.forceLabel && node !== selected && size < threshold)) return;
      // Places wholly on the drawing: one half off it would hide what it names. The selected
      // node's label goes where sigma draws its highlight (the same text in a white box): right.
      const agent = attrs.kind === 'agent';
      const all = labelPlaces(p.x, p.y, size, this.widths.width(label, font), settings.labelSize, agent);
      const places = node === selected ? [all[0]]
        : all.map((b) => (b.left >= 0 && b.right <= width && b.top >= 0 && b.bottom <= height ? b : null));
      if (places.every((b) => b === null)) return;
      const priority = labelPriority({
        // A summary's scope ranks with agents: its clusters mostly hold problem links, and
        // outranked the scope they belong to.
        selected: node === selected, neighbour: neighbours.has(node), agent: agent || attrs.kind === 'scope',
        // What changed since the moment drawn (graph/timeline.ts) is named first, as problems are.
        problem: attrs.kind === 'unresolved' || Number(attrs.problems) > 0 || Boolean(attrs.change), size: Number(attrs.size), degree: Number(attrs.degree) || 0,
      });
      candidates.push({ key: node, priority, always: node === selected, places });
    });
    this.chosen = chooseLabels(candidates, 2, largest(discs, MAX_DISCS));
    this.dropped = candidates.length - this.chosen.size;
    performance.measure('labels', 'labels:start');  // bench/bench_ui.py reports its cost
    performance.clearMarks('labels:start');
    if (++this.placements % 500 === 0) performance.clearMeasures('labels');  // a long session keeps a bounded log
  }

  /** The chosen labels where their nodes are now drawn (as sigma's drawDiscNodeLabel, at the chosen place). */
  private draw(still: boolean): void {
    const sigma = this.sigma;
    const context = sigma?.getCanvases().labels?.getContext('2d');
    if (!sigma || !context) return;
    const settings = sigma.getSettings();
    const font = fontOf(settings);
    const { attribute, color } = settings.labelColor;
    const drawn: [string, Box][] = [];
    context.font = font;
    // A white halo under each label keeps it legible over links and dense clusters.
    context.lineWidth = 3;
    context.lineJoin = 'round';
    context.strokeStyle = 'rgba(255, 255, 255, 0.85)';
    for (const [node, at] of this.chosen) {
      const d = sigma.getNodeDisplayData(node);
      if (!d || d.hidden || !d.label) continue;
      const p = sigma.framedGraphToViewport(d);
      const farther = at >= 4;  // only agents were offered more than the four nearest places
      const place = labelPlaces(p.x, p.y, sigma.scaleSize(d.size), this.widths.width(d.label, font), settings.labelSize, farther)[at];
      context.fillStyle = (attribute ? (d as unknown as Record<string, unknown>)[attribute] as string | undefined : undefined) || color || '#000';
      context.strokeText(d.label, place.left, place.baseline);
      context.fillText(d.label, place.left, place.baseline);
      if (drawn.length < EXPOSED) drawn.push([d.label, place]);
    }
    if (still) this.expose(drawn);
  }

  /**
   * The drawn labels' boxes on the canvas, `data-labels` = JSON [[label, left, top, right,
   * bottom], …] in CSS pixels of the drawing, and `data-labels-dropped` = how many labels were
   * left out to keep them apart (tests read both). From still frames only.
   */
  private expose(drawn: [string, Box][]): void {
    const text = JSON.stringify(drawn.map(([label, b]) => [label, ...[b.left, b.top, b.right, b.bottom].map((v) => Math.round(v * 10) / 10)]));
    if (text === this.exposed) return;
    this.exposed = text;
    this.canvas.dataset.labels = text;
    this.canvas.dataset.labelsDropped = String(this.dropped);
  }
}

function fontOf(settings: Settings): string {
  return `${settings.labelWeight} ${settings.labelSize}px ${settings.labelFont}`;
}

/** The `count` largest boxes (all of them if there are no more). */
function largest(boxes: Box[], count: number): Box[] {
  if (boxes.length <= count) return boxes;
  return boxes.map((b) => [b.right - b.left, b] as const).sort((x, y) => y[0] - x[0]).slice(0, count).map(([, b]) => b);
}
