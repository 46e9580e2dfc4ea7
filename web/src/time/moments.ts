// Moments as the UI takes and shows them: the Changes page's presets, the custom window's
// inputs, and the "as of" times of a note and of the graph. Everything is UTC, as the
// history records it and as `brain diff` prints it, so a time read here is the time an
// operator finds in the server's log. The server parses the same two forms
// (brain/tool/diff/changes.py `parse_moment`): ISO 8601, or an age such as "7d".
// No DOM here: test/moments.test.ts covers it.

export type Preset = { id: string; label: string; short: string };

/** The Changes page's windows, each ending now: the server reads the id as an age. */
export const PRESETS: readonly Preset[] = [
  { id: '24h', label: 'Last 24 hours', short: '24 h' },
  { id: '7d', label: 'Last 7 days', short: '7 days' },
  { id: '30d', label: 'Last 30 days', short: '30 days' },
];
export const DEFAULT_PRESET = '7d';

const UNIT_SECONDS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86400, w: 7 * 86400 };

/** The seconds of an age ("24h", "7d", "2w"), or null when `text` is not one. */
export function ageSeconds(text: string): number | null {
  const m = /^(\d+)\s*([smhdw])$/.exec(text.trim());
  return m ? Number(m[1]) * UNIT_SECONDS[m[2]] : null;
}

/** Milliseconds since the epoch of an age (before `now`) or an ISO time (UTC when it names
 * no zone); null when it is neither. */
export function momentOf(text: string, now: number): number | null {
  const age = ageSeconds(text);
  if (age !== null) return now - age * 1000;
  const value = text.trim();
  if (!/^\d{4}-\d{2}-\d{2}/.test(value)) return null;
  const zoned = /(Z|[+-]\d{2}:?\d{2})$/i.test(value) || !value.includes('T') ? value : `${value}Z`;
  const ms = Date.parse(value.includes('T') ? zoned : `${value}T00:00:00Z`);
  return Number.isNaN(ms) ? null : ms;
}

/** A datetime-local input's value, read as UTC (the inputs are labelled so), as ISO 8601. */
export function inputToIso(value: string): string | null {
  const m = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2})(:\d{2})?/.exec(value.trim());
  if (!m) return null;
  const iso = `${m[1]}T${m[2]}${m[3] ?? ':00'}Z`;
  return Number.isNaN(Date.parse(iso)) ? null : iso;
}

/** A moment (ms) as a datetime-local input's value, in UTC, to the minute (or the second). */
export function msToInput(ms: number, seconds = false): string {
  return new Date(ms).toISOString().slice(0, seconds ? 19 : 16);
}

/** A moment as people read it here: "2026-12-06 08:38 UTC", with its seconds when it has
 * some (two writes a second apart are two moments). */
export function formatMoment(moment: string | number): string {
  const ms = typeof moment === 'number' ? moment : momentOf(moment, Date.now());
  if (ms === null) return String(moment);
  const iso = new Date(ms).toISOString();
  return `${iso.slice(0, iso.slice(17, 19) === '00' ? 16 : 19).replace('T', ' ')} UTC`;
}

/** A moment (ms) as the API's ISO 8601, to the second. */
export function msToIso(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 19)}Z`;
}

export type WindowCheck = { ok: true } | { ok: false; message: string };

/** Whether a window the person typed can be asked for: both ends times, `until` after `since`,
 * `since` not in the future. The server checks again; this says what to fix before asking. */
export function checkWindow(since: string, until: string | undefined, now: number): WindowCheck {
  const start = momentOf(since, now);
  if (start === null) return { ok: false, message: `“${since}” is not a time: pick a date and time, or an age such as 7d.` };
  if (start > now) return { ok: false, message: 'The start of the window is in the future: nothing has changed there yet.' };
  if (until === undefined || until === '') return { ok: true };
  const end = momentOf(until, now);
  if (end === null) return { ok: false, message: `“${until}” is not a time: pick a date and time, or leave it empty for now.` };
  if (end < start) return { ok: false, message: 'The end of the window is before its start: swap them.' };
  return { ok: true };
}

/** The window in words, for headings and the empty state. */
export function windowLabel(since: string, until?: string): string {
  const preset = PRESETS.find((p) => p.id === since);
  if (preset && !until) return preset.label.replace(/^Last/, 'the last');
  const age = ageSeconds(since);
  const start = age !== null && !until ? `${since} ago` : formatMoment(since);
  return `${start} to ${until ? formatMoment(until) : 'now'}`;
}
