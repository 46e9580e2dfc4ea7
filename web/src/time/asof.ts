// "As of" for a note and the graph, without the DOM: the moments a note's own history
// offers (just before and just after each write), and reading the server's refusal of a
// moment it cannot show into the nearest moment it can. test/asof.test.ts covers it.
import { ageSeconds, momentOf } from './moments';

export type Write = { at: string; actor: string; via: string; command: string; path: string; newPath: string | null };

/** The moment just before a write (1 ms earlier): the note as that write found it. */
export function justBefore(at: string): string | null {
  const ms = Date.parse(at);
  return Number.isNaN(ms) ? null : new Date(ms - 1).toISOString();
}

/** Where "As of…" on a note's page goes first: just before its newest write (the version
 * that write replaced), or null when no write of it is recorded. */
export function previousVersionMoment(writes: Write[]): string | null {
  return writes.length ? justBefore(writes[0].at) : null;
}

/**
 * The server refuses a moment before its history begins, or one whose content retention
 * dropped, and names the oldest moment it can show (brain/tool/asof): that moment, to offer
 * it in one click, or null when the message names none.
 */
export function oldestShowable(message: string): string | null {
  const m = /(?:at or after|oldest moment brain can show is) (\d{4}-\d{2}-\d{2}T[\d:.]+Z)/.exec(message);
  return m ? m[1] : null;
}

/** True when the server's message says the moment is out of what the history keeps. */
export function isOutOfHistory(message: string): boolean {
  return /history begins|no longer kept|cannot be shown exactly/.test(message);
}

/** A moment as the server's DateTime takes it: ISO 8601 as given, an age ("24h") as the ISO
 * moment it names; null when it is neither. */
export function asDateTime(moment: string, now: number): string | null {
  const ms = momentOf(moment, now);
  if (ms === null) return null;
  return ageSeconds(moment) === null ? moment.trim() : new Date(ms).toISOString();
}
