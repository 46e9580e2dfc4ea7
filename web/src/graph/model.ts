// How graph nodes look: colours by kind / scope / type, link-status colours, overview layout.
// Pure (no DOM, no sigma) so the rules are unit-tested.

export type ColourBy = 'community' | 'kind' | 'scope' | 'type';
export type NodeAttrs = {
  kind: string; label: string; scope: string | null; memType: string | null; problems: number; memoryOff: boolean;
};

export const KIND_COLOURS: Record<string, string> = {
  memory: '#4e79a7', agent: '#f28e2b', workflow: '#59a14f', chat: '#76b7b2', 'work-item': '#b07aa1', unresolved: '#e15759',
};
export const TYPE_COLOURS: Record<string, string> = {
  USER: '#4e79a7', FEEDBACK: '#f28e2b', PROJECT: '#59a14f', REFERENCE: '#b07aa1',
};
export const STATUS_COLOURS: Record<string, string> = {
  RESOLVED: '#b8c0cc', BROKEN: '#e15759', AMBIGUOUS: '#f28e2b', MISSING_ANCHOR: '#9c27b0', REMEMBERS: '#e8d5b5',
};
const UNTYPED = '#9aa0a6';

/** A stable colour for any string (scopes): a hue from its hash. */
export function hashColour(text: string): string {
  let h = 2166136261;
  for (let i = 0; i < text.length; i++) { h ^= text.charCodeAt(i); h = Math.imul(h, 16777619); }
  // As #rrggbb: sigma's WebGL programs read hex and rgb(), and draw an hsl() black.
  return hslHex((h >>> 0) % 360, 0.55, 0.48);
}

/** hsl(h, s, l) as #rrggbb. */
export function hslHex(hue: number, s: number, l: number): string {
  const a = s * Math.min(l, 1 - l);
  const f = (n: number) => {
    const k = (n + hue / 30) % 12;
    return Math.round(255 * (l - a * Math.max(-1, Math.min(k - 3, 9 - k, 1)))).toString(16).padStart(2, '0');
  };
  return `#${f(0)}${f(8)}${f(4)}`;
}

/** A node's colour by `by`; by community, where its community is not known, its kind's. */
export function nodeColour(n: NodeAttrs, by: ColourBy): string {
  if (by === 'community') by = 'kind';
  if (n.kind === 'unresolved') return KIND_COLOURS.unresolved;  // always stands out
  if (by === 'kind' || n.kind !== 'memory') return by === 'scope' && n.kind === 'agent' && n.scope ? hashColour(n.scope) : KIND_COLOURS[n.kind] ?? UNTYPED;
  if (by === 'scope') return n.scope === 'shared' ? '#333a44' : hashColour(n.scope ?? '');
  return n.memType ? TYPE_COLOURS[n.memType] ?? UNTYPED : UNTYPED;
}

export function nodeSize(n: NodeAttrs, degree: number): number {
  const base = n.kind === 'agent' ? 9 : n.kind === 'unresolved' ? 5 : 3.5;
  return Math.min(base + Math.sqrt(degree) * 0.9, 18) + (n.problems > 0 ? 1.5 : 0);
}

export function edgeColour(status: string | null): string {
  return STATUS_COLOURS[status ?? 'REMEMBERS'] ?? STATUS_COLOURS.RESOLVED;
}

export function isProblemStatus(status: string | null): boolean {
  return status === 'BROKEN' || status === 'AMBIGUOUS' || status === 'MISSING_ANCHOR';
}

/**
 * Positions for a whole-workspace overview without a force simulation: one cluster per
 * scope (plus entities and unresolved targets), clusters on a spiral, notes in a sunflower
 * disc inside each. Linear time, so 10,000 notes lay out instantly and stay put.
 */
export function clusterLayout(nodes: { cluster: string }[]): { x: number; y: number }[] {
  const groups = new Map<string, number[]>();
  nodes.forEach((n, i) => {
    const g = groups.get(n.cluster);
    if (g) g.push(i); else groups.set(n.cluster, [i]);
  });
  const ordered = [...groups.entries()].sort((a, b) => b[1].length - a[1].length);
  const out: { x: number; y: number }[] = new Array(nodes.length);
  const golden = Math.PI * (3 - Math.sqrt(5));
  let placedRadius = 0;
  ordered.forEach(([, members], k) => {
    const radius = Math.sqrt(members.length) * 2 + 2;
    let cx = 0;
    let cy = 0;
    if (k > 0) {
      const angle = k * 2.4;
      const dist = placedRadius + radius + 4;
      cx = Math.cos(angle) * dist;
      cy = Math.sin(angle) * dist;
    }
    placedRadius = Math.max(placedRadius, Math.hypot(cx, cy) + radius);
    members.forEach((idx, j) => {
      const r = 2 * Math.sqrt(j + 0.5);
      out[idx] = { x: cx + Math.cos(j * golden) * r, y: cy + Math.sin(j * golden) * r };
    });
  });
  return out;
}

/** The cluster an overview node belongs to. */
export function clusterOf(n: NodeAttrs): string {
  if (n.kind === 'memory' || n.kind === 'agent') return `scope:${n.scope}`;
  return n.kind === 'unresolved' ? 'unresolved' : 'entities';
}

/** The edges of an overview answer a drawing shows (indexes): all but self-links. */
export function drawableEdges(source: number[], target: number[]): number[] {
  const out: number[] = [];
  for (let i = 0; i < source.length; i++) if (source[i] !== target[i]) out.push(i);
  return out;
}

type Point = { x: number; y: number };

/**
 * Where an expand puts a node's new neighbours: around it, in rings `spacing` apart, facing
 * away from the drawing's centre (where the rest of the graph is), so nothing already drawn
 * has to move: re-laying out the whole drawing on every click costs a frame and loses the
 * person's bearings.
 */
export function fanOut(around: Point, centre: Point, count: number, spacing: number): Point[] {
  const dx = around.x - centre.x;
  const dy = around.y - centre.y;
  const outward = Math.hypot(dx, dy) > 1e-9;
  // Away from the centre: a half circle; at the centre itself: all around.
  const arc = outward ? Math.PI : Math.PI * 2;
  const heading = outward ? Math.atan2(dy, dx) : 0;
  const out: Point[] = [];
  for (let ring = 1; out.length < count; ring++) {
    const radius = spacing * ring;
    // As many as fit on this ring with `spacing` between them.
    const room = Math.max(1, Math.floor((arc * radius) / spacing));
    const here = Math.min(room, count - out.length);
    for (let k = 0; k < here; k++) {
      const angle = outward
        ? heading - arc / 2 + (arc * (k + 0.5)) / here
        : heading + (arc * k) / here + (ring % 2 ? 0 : arc / (2 * here));
      out.push({ x: around.x + Math.cos(angle) * radius, y: around.y + Math.sin(angle) * radius });
    }
  }
  return out;
}

/** A typical link length in a drawing (the median over a sample), for placing new nodes. */
export function typicalSpacing(lengths: number[], fallback = 1): number {
  const usable = lengths.filter((l) => Number.isFinite(l) && l > 0).sort((a, b) => a - b);
  return usable.length ? usable[Math.floor(usable.length / 2)] : fallback;
}
