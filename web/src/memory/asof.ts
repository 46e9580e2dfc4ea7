// A note as it was at a moment (#/memory/<scope>/<file>?asOf=T): its text, description,
// type, links with their statuses and problems then (GraphQL `memory(asOf:)`), under a
// banner that says so, with a way back to now, a moment picker, the note's own writes as
// moments to jump to, and what changed since. Read-only: the past is not edited. The
// memory view (memory.ts) hands the page here when the route names a moment.
import { ApiError, Forbidden, gql } from '../api';
import { clear, h, toast } from '../dom';
import { diffLines, noteOfPath, problemPlace, routeHash, type Problem } from '../logic';
import * as ops from '../ops';
import { asDateTime, isOutOfHistory, justBefore, oldestShowable, previousVersionMoment, type Write } from '../time/asof';
import { formatMoment, inputToIso, momentOf, msToInput } from '../time/moments';

type LinkThen = { text: string; line: number; column: number; status: string; targetId: string; target: { __typename: string; path?: string } };
type NoteThen = { path: string; scope: string; name: string; description: string; type: string | null; hash: string; body: string; linkCount: number; links: LinkThen[]; problemCount: number; problems: Problem[] };
type NoteNow = { hash: string; body: string; description: string; type: string | null };
type Note = { scope: string; file: string };

const SHOWN_WRITES = 12;
const STATUS_TEXT: Record<string, string> = { RESOLVED: 'resolved', BROKEN: 'broken', AMBIGUOUS: 'ambiguous', MISSING_ANCHOR: 'missing anchor' };

async function writesOf(path: string): Promise<Write[]> {
  return (await gql<{ memoryHistory: { records: Write[] } }>(ops.MEMORY_HISTORY, { path })).memoryHistory.records;
}

/** "As of…" on a note's page: the note just before its newest write (the version it replaced). */
export async function openPreviousVersion(note: Note): Promise<void> {
  const path = `memory/${note.scope}/${note.file}`;
  let moment: string | null = null;
  try {
    moment = previousVersionMoment(await writesOf(path));
  } catch (e) {
    if (!(e instanceof ApiError)) throw e;
  }
  if (!moment) toast('No write of this note is recorded: pick a moment to see the memory then.');
  location.hash = routeHash({ view: 'memory', ...note, asOf: moment ?? new Date().toISOString() });
}

/** Renders the note as of `asOf` into `body`. */
export async function renderNoteAsOf(body: HTMLElement, note: Note, asOf: string, renderDiff: (lines: ReturnType<typeof diffLines>) => HTMLElement): Promise<void> {
  const path = `memory/${note.scope}/${note.file}`;
  const now = routeHash({ view: 'memory', ...note });
  const at = (moment: string) => routeHash({ view: 'memory', ...note, asOf: moment });
  const moment = asDateTime(asOf, Date.now());
  const input = h('input', { type: 'datetime-local', id: 'asof-moment', step: 1 });
  const ms = momentOf(asOf, Date.now());
  if (ms !== null) input.value = msToInput(ms, true);
  const error = h('p', { class: 'error', role: 'alert' });
  const writes = h('div', { class: 'asof-writes' });
  const content = h('div', { class: 'asof-content', 'aria-busy': 'true' }, h('p', { class: 'muted' }, 'Reading the history…'));
  const label = moment ? formatMoment(moment) : asOf;
  clear(body,
    h('div', { class: 'crumbs' }, h('a', { href: routeHash({ view: 'memory', scope: note.scope }) }, `← ${note.scope === 'shared' ? 'Shared' : note.scope}`)),
    h('section', { class: 'asof-banner', 'aria-label': 'As of' },
      h('div', { class: 'asof-line' },
        h('strong', {}, `As of ${label}`),
        h('span', {}, ` · ${path} as it was then (read-only).`),
        h('span', { class: 'spacer' }),
        h('a', { class: 'button primary', href: now }, 'Back to now')),
      h('form', { class: 'asof-pick', onsubmit: (e: Event) => {
        e.preventDefault();
        const iso = inputToIso(input.value);
        if (!iso) { error.textContent = 'Pick a date and time (UTC).'; input.focus(); return; }
        location.hash = at(iso);
      } },
        h('label', { for: 'asof-moment' }, 'Moment (UTC)'), input, h('button', { type: 'submit' }, 'Show'),
        writes),
      error),
    content);
  void writesOf(path).then((records) => fillWrites(writes, records, at), () => {});
  if (!moment) { fail(content, error, `“${asOf}” is not a time: pick one above.`, null, at); return; }
  let then: NoteThen | null;
  let current: NoteNow | null;
  try {
    const [a, b] = await Promise.all([
      gql<{ memory: NoteThen | null }>(ops.NOTE_AS_OF, { path, asOf: moment }),
      gql<{ memory: NoteNow | null }>(ops.NOTE_NOW, { path }),
    ]);
    then = a.memory;
    current = b.memory;
  } catch (e) {
    if (e instanceof Forbidden) {
      // GraphQL's `memory` reads the whole graph of the moment: an agent's token asks its own way.
      fail(content, error, `A note as it was needs an admin token here. An agent sees its own and the shared notes as they were with the memory tool (memory_as_of) or GET /api/memory/${note.scope}/${note.file}?asOf=.`, null, at);
      return;
    }
    if (!(e instanceof ApiError)) throw e;
    const message = e.message.replace(/^asOf: /, '');
    // The server's refusal says what brain cannot show and the oldest moment it can (brain/tool/asof/oldest.py).
    const out = message.startsWith('brain cannot show') ? message : `brain cannot show this moment: ${message}`;
    fail(content, error, isOutOfHistory(message) ? out : `The note could not be read: ${message}`, oldestShowable(message), at);
    return;
  }
  content.removeAttribute('aria-busy');
  if (!then) {
    clear(content, h('div', { class: 'empty-state' },
      h('h2', {}, `${path} did not exist at ${label}`),
      h('p', {}, current ? 'It was created later: pick a later moment, or one of its writes above.' : 'It does not exist now either; its writes above show when it did.')));
    return;
  }
  const link = (l: LinkThen) => {
    const target = l.target.__typename === 'Memory' && l.target.path ? noteOfPath(l.target.path) : null;
    return h('li', { class: `st-${l.status.toLowerCase()}` },
      target ? h('a', { href: routeHash({ view: 'memory', ...target, asOf: moment }) }, l.text) : h('code', {}, l.text),
      h('span', { class: 'muted' }, ` line ${l.line}`),
      h('span', { class: `link-status s-${l.status.toLowerCase()}` }, STATUS_TEXT[l.status] ?? l.status.toLowerCase()));
  };
  clear(content,
    h('div', { class: 'scope-head' },
      h('h1', {}, then.path),
      then.type ? h('span', { class: `type t-${then.type.toLowerCase()}` }, then.type.toLowerCase()) : null,
      h('span', { class: 'tag asof' }, `as of ${label}`)),
    h('p', { class: 'asof-description' }, h('span', { class: 'muted' }, 'Description then: '), then.description || h('em', { class: 'muted' }, 'none')),
    h('pre', { class: 'asof-text', tabindex: '0', 'aria-label': `Text of ${then.path} as of ${label}` }, trimmed(then.body)),
    h('section', { 'aria-label': 'Links then' }, h('h2', {}, `Links then (${then.linkCount}${then.linkCount > then.links.length ? `, the first ${then.links.length} listed` : ''})`),
      then.links.length ? h('ul', { class: 'links asof-links' }, then.links.map(link)) : h('p', { class: 'muted' }, 'No links.')),
    h('section', { 'aria-label': 'Problems then' }, h('h2', {}, 'Problems then'),
      h('ul', { class: 'problem-list' }, then.problems.length ? then.problems.map((p) => h('li', { class: p.severity.toLowerCase() },
        problemPlace(p), ' ', h('code', {}, p.code), ' ', p.message)) : h('li', { class: 'muted' }, 'No problems.'))),
    h('section', { 'aria-label': 'Changed since then' }, h('h2', {}, 'Changed since then'), since(then, current, now, renderDiff)));
}

function since(then: NoteThen, current: NoteNow | null, now: string, renderDiff: (lines: ReturnType<typeof diffLines>) => HTMLElement): HTMLElement | HTMLElement[] {
  if (!current) return h('p', {}, 'This note has been removed since.');
  if (current.hash === then.hash) return h('p', { class: 'muted' }, 'Nothing: the note is the same now.');
  const notes: HTMLElement[] = [];
  if (current.description !== then.description) notes.push(h('p', {}, 'Description now: ', current.description || h('em', {}, 'none')));
  if ((current.type ?? null) !== (then.type ?? null)) notes.push(h('p', {}, `Type now: ${current.type?.toLowerCase() ?? 'none'}`));
  return [...notes, renderDiff(diffLines(trimmed(then.body), trimmed(current.body))), h('p', {}, h('a', { href: now }, 'Open the note as it is now'))];
}

/** A body without the blank lines its frontmatter leaves at the top. */
const trimmed = (body: string) => body.replace(/^\s*\n/, '');

function fail(content: HTMLElement, error: HTMLElement, message: string, oldest: string | null, at: (m: string) => string): void {
  content.removeAttribute('aria-busy');
  error.textContent = message;
  clear(content, oldest ? h('p', {}, h('a', { class: 'button', href: at(oldest) }, `Show the oldest moment brain can show (${formatMoment(oldest)})`)) : null);
}

function fillWrites(into: HTMLElement, records: Write[], at: (m: string) => string): void {
  if (!records.length) { clear(into, h('span', { class: 'muted' }, 'No write of this note is recorded.')); return; }
  const shown = records.slice(0, SHOWN_WRITES);
  clear(into, h('details', {},
    h('summary', {}, `Its writes (${records.length}${records.length > SHOWN_WRITES ? `, newest ${SHOWN_WRITES} listed` : ''})`),
    h('ol', {}, shown.map((r) => {
      const before = justBefore(r.at);
      return h('li', {},
        h('time', { datetime: r.at }, formatMoment(r.at)), ` ${r.command} by ${r.actor} via ${r.via} · `,
        before ? h('a', { href: at(before) }, 'before') : null, ' · ',
        h('a', { href: at(r.at) }, 'after'));
    }))));
}
