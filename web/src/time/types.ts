// The shapes of memory through time, as the API sends them: GraphQL `changes` (the JSON of
// `brain diff --format json`, brain/tool/diff/changes.py). A module of its own so the
// views and the pure helpers that read them import it, and not each other.

/** Where a change came from: `tool` (the memory tool: MCP, REST, GraphQL, CLI), `ui`,
 * `maintain`, `consolidate`, or `external` (an edit made outside brain). Open-ended. */
export type Origin = string;

/** A note added or removed in the window, with the origin and actor of its last change. */
export type NoteEntry = { path: string; origin: Origin; by: string };
/** A note changed in the window: its content hash before and after. */
export type NoteChanged = NoteEntry & { before: string; after: string };
/** A link a change broke (its target names no note at `until`) or fixed. */
export type LinkEntry = { source: string; target: string; line: number };
/** A problem of `brain check` a change brought (new) or took away (gone). */
export type ProblemEntry = { path: string; code: string; message: string; line: number | null };
/** A side of a change whose content the history no longer has (retention or its cap). */
export type NotKept = { path: string; side: 'before' | 'after'; hash: string };

export type ChangeSet = {
  since: string;
  until: string;
  notes: { added: NoteEntry[]; removed: NoteEntry[]; changed: NoteChanged[] };
  links: { broken: LinkEntry[]; fixed: LinkEntry[] };
  problems: { new: ProblemEntry[]; gone: ProblemEntry[] };
  notKept: NotKept[];
};

/** How a note differs between a moment and now (or between the two ends of a window). */
export type ChangeKind = 'added' | 'removed' | 'changed';
