// The colours of change on the graph "as of" a moment: what was added since, removed since,
// or changed since stands out; everything unchanged is one quiet grey (its usual colours,
// kinds and link statuses, would compete with these). One palette for the drawing and its
// legend. Pure: test/changecolour.test.ts.
import type { ChangeKind } from './types';

export const CHANGE_COLOURS: Record<ChangeKind, string> = { added: '#1a9850', removed: '#d73027', changed: '#f39c12' };
export const UNCHANGED_NODE = '#a7b0bc';
export const UNCHANGED_LINK = '#c3cad3';

export const CHANGE_WORDS: Record<ChangeKind, string> = { added: 'added since', removed: 'removed since', changed: 'changed since' };

export type Look = { color: string; size: number; zIndex: number; forceLabel?: boolean };

/** A node's look in the drawing as of a moment: changed ones bigger, on top and named. */
export function nodeLook(kind: ChangeKind | null | undefined, size: number): Look {
  if (!kind) return { color: UNCHANGED_NODE, size, zIndex: 1 };
  return { color: CHANGE_COLOURS[kind], size: size + 2, zIndex: 3, forceLabel: true };
}

/** A link's look: an added or removed one drawn thick, an unchanged one thin and pale. */
export function linkLook(kind: ChangeKind | null | undefined, size: number): Look {
  if (!kind) return { color: UNCHANGED_LINK, size: Math.max(size, 1), zIndex: 0 };
  return { color: CHANGE_COLOURS[kind], size: Math.max(size, 2), zIndex: 2 };
}

export type LegendEntry = { colour: string; label: string; dot: boolean };

/** The legend of a drawing as of a moment, with how many of each the drawing holds. */
export function changeLegend(counts: Record<ChangeKind, number> & { linksAdded: number; linksRemoved: number }): LegendEntry[] {
  const n = (k: number, one: string, many: string) => `${k} ${k === 1 ? one : many}`;
  return [
    { colour: CHANGE_COLOURS.added, label: `${CHANGE_WORDS.added} (${n(counts.added, 'node', 'nodes')}, ${n(counts.linksAdded, 'link', 'links')})`, dot: true },
    { colour: CHANGE_COLOURS.removed, label: `${CHANGE_WORDS.removed} (${n(counts.removed, 'node', 'nodes')}, ${n(counts.linksRemoved, 'link', 'links')})`, dot: true },
    { colour: CHANGE_COLOURS.changed, label: `${CHANGE_WORDS.changed} (${n(counts.changed, 'note', 'notes')})`, dot: true },
    { colour: UNCHANGED_NODE, label: 'unchanged', dot: true },
  ];
}
