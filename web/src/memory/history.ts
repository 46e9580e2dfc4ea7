// A note's history (seeds/000 "Reviewing it"): every write brain recorded, with what it changed.
import { ApiError, gql } from '../api';
import { clear, h } from '../dom';
import { diffHunks, diffLines, historyDiff } from '../logic';
import * as ops from '../ops';

type HistoryRecord = { id: string; at: string; actor: string; via: string; command: string; scope: string; path: string; before: string | null; after: string | null; newPath: string | null; beforeText: string | null; afterText: string | null };

export async function showHistory(into: HTMLElement, path: string): Promise<void> {
  let records: HistoryRecord[];
  try {
    records = (await gql<{ memoryHistory: { records: HistoryRecord[] } }>(ops.MEMORY_HISTORY, { path })).memoryHistory.records;
  } catch (e) {
    if (e instanceof ApiError) { clear(into, h('p', { class: 'error' }, e.message)); return; }
    throw e;
  }
  const short = (x: string | null) => (x ? x.slice(0, 8) : '∅');
  const change = (r: HistoryRecord) => {
    const d = historyDiff(r);
    if (d.kind === 'same') return null;
    if (d.kind === 'missing') return h('p', { class: 'muted' }, d.message);
    return h('div', { role: 'region', 'aria-label': `Changes of the ${r.command} at ${r.at}` }, renderDiff(d.lines));
  };
  clear(into, h('h2', {}, 'History'), records.length ? h('ol', { class: 'history-list' }, records.map((r) => h('li', {},
    h('div', { class: 'history-head' },
      h('time', { datetime: r.at }, new Date(r.at).toLocaleString()), ' ',
      h('strong', {}, r.command), ` by ${r.actor} via ${r.via} `,
      h('code', {}, `${short(r.before)} → ${short(r.after)}`),
      r.newPath ? ` → ${r.newPath}` : null),
    change(r)))) :
    h('p', { class: 'muted' }, 'No writes through brain are recorded for this note (edits made straight on disk are not in the history).'));
  into.scrollIntoView({ block: 'start' });
}

export function renderDiff(lines: ReturnType<typeof diffLines>): HTMLElement {
  return h('pre', { class: 'diff', tabindex: '0' }, diffHunks(lines).map((l) => l.op === '…'
    ? h('span', { class: 'skip' }, `⋯ ${l.skipped} unchanged ${l.skipped === 1 ? 'line' : 'lines'}\n`)
    : h('span', { class: l.op === '+' ? 'add' : l.op === '-' ? 'del' : 'same' }, `${l.op} ${l.text}\n`)));
}
