// The memory view's dialogs: a new note, deleting one, renaming or moving one (seeds/000
// "Reviewing it"), each one GraphQL write with the hash the note was opened with.
import { gql } from '../api';
import { h, modal, toast } from '../dom';
import { memoryFileName, MEMORY_TYPES, newMemorySkeleton, routeHash } from '../logic';
import * as ops from '../ops';
import { SHARED, type FileInfo, type Scope, type WriteResult } from './types';
/** The note open in the editor, as a dialog needs it. */
export type OpenNote = { scope: string; file: string; hash: string };
/** What the dialogs ask of the memory view. */
export interface NoteHost {
  readonly files: Map<string, Promise<FileInfo[]>>;
  readonly scopes: Scope[];
  readonly scopesLoaded: Promise<void> | null;
  readonly open: OpenNote | null;
  closeEditor(): void;
  refreshOpen(): Promise<void>;
}

export function newMemoryDialog(host: NoteHost, s: Scope): void {
  const input = h('input', { id: 'new-name', type: 'text', required: true, placeholder: 'e.g. release-checklist', autocomplete: 'off' });
  const type = h('select', { id: 'new-type' }, MEMORY_TYPES.map((t) => h('option', { value: t, selected: t === 'project' }, t)));
  const error = h('p', { class: 'error', role: 'alert' });
  modal(`New memory in ${s.scope === SHARED ? 'Shared' : s.scope}`, [
    h('label', { for: 'new-name' }, 'Name'), input,
    h('label', { for: 'new-type' }, 'Type'), type, error,
  ], [
    { label: 'Create', primary: true, action: async () => {
      const name = memoryFileName(input.value);
      if ('error' in name) { error.textContent = name.error; return true; }
      const r = (await gql<{ memoryWrite: WriteResult }>(ops.MEMORY_WRITE, {
        scope: s.scope, file: name.file, content: newMemorySkeleton(type.value), expectedHash: '',
      })).memoryWrite;
      if (!r.ok) { error.textContent = r.refusal?.message ?? 'refused'; return true; }
      host.files.delete(s.scope);
      location.hash = routeHash({ view: 'memory', scope: s.scope, file: name.file, line: 2 });
      return false;
    } },
    { label: 'Cancel', action: () => {} },
  ]);
  input.focus();
}

export function removeDialog(host: NoteHost, o: OpenNote): void {
  const path = `memory/${o.scope}/${o.file}`;
  modal('Delete this memory?', h('p', {}, `Delete ${path}? The file is removed from the workspace.`), [
    { label: `Delete ${path}`, danger: true, primary: true, action: async () => {
      const r = (await gql<{ memoryRemove: WriteResult }>(ops.MEMORY_REMOVE, { scope: o.scope, file: o.file, expectedHash: o.hash })).memoryRemove;
      if (!r.ok) {
        if (r.refusal?.code === 'CONFLICT') { toast('Not deleted: the note changed since you opened it. Review it first.', 'error'); void host.refreshOpen(); }
        else toast(`Not deleted: ${r.refusal?.message}`, 'error');
        return;
      }
      toast(`Deleted ${path}`);
      host.closeEditor();
      host.files.delete(o.scope);
      location.hash = routeHash({ view: 'memory', scope: o.scope });
    } },
    { label: 'Cancel', action: () => {} },
  ]);
}

export async function renameDialog(host: NoteHost, o: OpenNote): Promise<void> {
  // The scopes load after the note is shown: a Rename clicked before they are here offered
  // no scope at all, and the move was refused with "`` is not a memory scope".
  await host.scopesLoaded?.catch(() => {});
  if (host.open !== o) return;
  const targets = host.scopes.filter((s) => !s.memoryOff || s.scope === o.scope).map((s) => s.scope);
  if (!targets.includes(o.scope)) targets.unshift(o.scope);
  const input = h('input', { id: 'rename-name', type: 'text', value: o.file.replace(/\.md$/, ''), required: true });
  const scope = h('select', { id: 'rename-scope' }, targets
    .map((s) => h('option', { value: s, selected: s === o.scope }, s === SHARED ? 'Shared' : s)));
  const error = h('p', { class: 'error', role: 'alert' });
  modal(`Rename memory/${o.scope}/${o.file}`, [
    h('label', { for: 'rename-name' }, 'New name'), input,
    h('label', { for: 'rename-scope' }, 'Scope'), scope,
    h('p', { class: 'muted' }, 'Links to the old name are not rewritten: they show up as broken in Link integrity.'), error,
  ], [
    { label: 'Rename', primary: true, action: async () => {
      const name = memoryFileName(input.value);
      if ('error' in name) { error.textContent = name.error; return true; }
      const r = (await gql<{ memoryMove: WriteResult }>(ops.MEMORY_MOVE, {
        scope: o.scope, file: o.file, newScope: scope.value, newFile: name.file, expectedHash: o.hash,
      })).memoryMove;
      if (!r.ok) { error.textContent = r.refusal?.message ?? 'refused'; return true; }
      toast(`Renamed to ${r.path}`);
      host.closeEditor();
      host.files.delete(o.scope);
      host.files.delete(scope.value);
      location.hash = routeHash({ view: 'memory', scope: scope.value, file: name.file });
      return false;
    } },
    { label: 'Cancel', action: () => {} },
  ]);
  input.select();
}
