// sigma's side of label placement (labels.ts decides): sigma offers every label it could draw
// (the grid's density limit is lifted) and this drawing function draws only the chosen ones,
// each at the place chosen for it.
// The choice is made again on the first label of a frame whose camera, size, threshold or data
// changed, and only while the camera is still: a pan or zoom keeps the last choice (big drawings
// hide labels while moving anyway), so moving frames cost what they did.
import type Sigma from 'sigma';
import type { NodeLabelDrawingFunction } from 'sigma/rendering';
import { chooseLabels, labelPlaces, labelPriority, TextWidths, type Box, type LabelCandidate } from './labels';

// sigma skips labels whose node lies further off the drawing than this (renderLabels).
const X_MARGIN = 150;
const Y_MARGIN = 50;
// The drawn boxes the page exposes for tests (data-labels); a drawing shows far fewer.
const EXPOSED = 2000;

type Settings = Parameters<NodeLabelDrawingFunction>[2];

export class LabelPlacer {
  private sigma: Sigma | null = null;
  private chosen = new Map<string, number>();
  private placedFor = '';
  private version = 0;
  private frame = 0;
  private placedFrame = -1;
  private dropped = 0;
  private drawn: [string, Box][] = [];
  private exposed = '';
  private readonly widths: TextWidths;

  /** `selected`: the node whose label always shows; its neighbours' labels come next. */
  constructor(private readonly canvas: HTMLElement, private readonly selected: () => string | null) {
    const measure = document.createElement('canvas').getContext('2d');
    this.widths = new TextWidths((text, font) => {
      if (!measure) return text.length * 7;
      measure.font = font;
      return measure.measureText(text).width;
    });
  }

  /** The label drawing function to give sigma (setting `defaultDrawNodeLabel`). */
  readonly draw: NodeLabelDrawingFunction = (context, data, settings) => {
    if (this.placedFrame !== this.frame) { this.placedFrame = this.frame; this.place(settings); }
    const key = (data as { key?: string }).key;
    const at = key === undefined ? undefined : this.chosen.get(key);
    if (at === undefined || !data.label) return;
    const font = fontOf(settings);
    const place = labelPlaces(data.x, data.y, data.size, this.widths.width(data.label, font), settings.labelSize)[at];
    // As sigma's drawDiscNodeLabel, at the chosen place.
    const { attribute, color } = settings.labelColor;
    context.fillStyle = (attribute ? (data as Record<string, unknown>)[attribute] as string | undefined : undefined) || color || '#000';
    context.font = font;
    context.fillText(data.label, place.left, place.baseline);
    if (this.drawn.length < EXPOSED) this.drawn.push([data.label, place]);
  };

  /** Follows `sigma`'s frames; its settings must have `labelDensity: Infinity` and `defaultDrawNodeLabel: draw`. */
  attach(sigma: Sigma): void {
    this.sigma = sigma;
    sigma.on('beforeRender', () => { this.frame++; this.drawn = []; });
    sigma.on('afterRender', () => this.expose());
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

  private place(settings: Settings): void {
    const sigma = this.sigma;
    if (!sigma || this.moving()) return;
    const camera = sigma.getCamera().getState();
    const { width, height } = sigma.getDimensions();
    const threshold = settings.labelRenderedSizeThreshold;
    const key = `${camera.x},${camera.y},${camera.ratio},${camera.angle}|${width}x${height}|${threshold}|${this.version}`;
    if (key === this.placedFor) return;
    performance.mark('labels:start');
    this.placedFor = key;
    const graph = sigma.getGraph();
    const selected = this.selected();
    const neighbours = new Set<string>();
    if (selected !== null && graph.hasNode(selected)) graph.forEachNeighbor(selected, (n) => { neighbours.add(n); });
    const font = fontOf(settings);
    const candidates: LabelCandidate[] = [];
    graph.forEachNode((node, attrs) => {
      const d = sigma.getNodeDisplayData(node);
      if (!d || d.hidden || !d.label) return;
      const size = sigma.scaleSize(d.size);
      if (!d.forceLabel && size < threshold) return;
      const p = sigma.framedGraphToViewport(d);
      if (p.x < -X_MARGIN || p.x > width + X_MARGIN || p.y < -Y_MARGIN || p.y > height + Y_MARGIN) return;
      // Places wholly on the drawing: one half off it would hide what it names.
      // (the selected node's label shows anyway).
      const all = labelPlaces(p.x, p.y, size, this.widths.width(d.label, font), settings.labelSize);
      const fit = all.map((b) => (b.left >= 0 && b.right <= width && b.top >= 0 && b.bottom <= height ? b : null));
      const places = node === selected && fit.every((b) => b === null) ? all : fit;
      if (places.every((b) => b === null)) return;
      const priority = labelPriority({
        selected: node === selected, neighbour: neighbours.has(node), agent: attrs.kind === 'agent',
        problem: attrs.kind === 'unresolved' || Number(attrs.problems) > 0, size: d.size, degree: Number(attrs.degree) || 0,
      });
      candidates.push({ key: node, priority, always: node === selected, places });
    });
    this.chosen = chooseLabels(candidates);
    this.dropped = candidates.length - this.chosen.size;
    performance.measure('labels', 'labels:start');  // bench/bench_ui.py reports its cost
  }

  /**
   * The drawn labels' boxes on the canvas, `data-labels` = JSON [[label, left, top, right,
   * bottom], …] in CSS pixels of the drawing, and `data-labels-dropped` = how many labels were
   * left out to keep them apart (tests read both). Only from still frames, which draw labels.
   */
  private expose(): void {
    if (this.moving()) return;  // a still frame draws labels (none if it offered none)
    const text = JSON.stringify(this.drawn.map(([label, b]) => [label, ...[b.left, b.top, b.right, b.bottom].map((v) => Math.round(v * 10) / 10)]));
    if (text === this.exposed) return;
    this.exposed = text;
    this.canvas.dataset.labels = text;
    this.canvas.dataset.labelsDropped = String(this.dropped);
  }
}

function fontOf(settings: Settings): string {
  return `${settings.labelWeight} ${settings.labelSize}px ${settings.labelFont}`;
}
