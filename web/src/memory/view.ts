// Memory review (seeds/000 "Reviewing it"): scopes, their files, the editor, new / delete /
// rename, history, and the agent's `## Your memory` prompt block.
import type { EditorView } from '@codemirror/view';
import type * as EditorModule from './editor';
import { Forbidden, gql } from '../api';
import { clear, h, toast } from '../dom';
import { ConsolidatePanel } from '../consolidate';
import { FindBox } from '../find';
import { nearbySection } from './nearby';
import { renderDiff, showHistory } from './history';
import { newMemoryDialog, removeDialog, renameDialog, type NoteHost } from './dialogs';
import { openPreviousVersion, renderNoteAsOf } from './asof';
import type { ChangeEvent } from '../live';
import { diffLines, formatSize, noteOfPath, problemPlace, routeHash, type LinkCandidate, type Problem, type Route } from '../logic';
import { SHARED, type FileInfo, type Scope, type WriteResult } from './types';
import * as ops from '../ops';
import type { View } from '../view';

/** Rows of a scope's table drawn at once (ops.FIRST_ROWS); the rest follow MORE_ROWS a frame. */
const { FIRST_ROWS } = ops;
const MORE_ROWS = 400;

type Loaded = { text: string; hash: string; info: FileInfo; problems: Problem[] };

let editorModule: typeof EditorModule | null = null;
async function loadEditor(): Promise<typeof EditorModule> {
  editorModule ??= await import('./editor');
  return editorModule;
}

export class MemoryView implements View, NoteHost {
  readonly el = h('div', { class: 'memory-view' });
  private readonly nav = h('nav', { class: 'scopes', 'aria-label': 'Memory scopes' });
  private readonly body = h('section', { class: 'scope-body', 'aria-live': 'off' });
  scopes: Scope[] = [];
  scopesLoaded: Promise<void> | null = null;
  /** Files by scope, loaded when a scope is shown; a change in a scope drops its entry. */
  readonly files = new Map<string, Promise<FileInfo[]>>();
  private entities: LinkCandidate[] | null = null;
  private route: Route & { view: 'memory' } = { view: 'memory' };
  open: { scope: string; file: string; hash: string; editor: EditorView; dirty: boolean; conflict: boolean; problems: Problem[]; banner: HTMLElement; problemList: HTMLElement } | null = null;
  private filterText = '';
  /** Consolidation panels by scope: they outlive the re-renders the run's own writes cause. */
  private consolidations = new Map<string, ConsolidatePanel>();

  private readonly find = new FindBox({
    label: 'Search memory', placeholder: 'Search notes…',
    onHit: (hit) => { const note = noteOfPath(hit.path); if (note) location.hash = routeHash({ view: 'memory', ...note }); },
  });

  constructor() {
    this.el.append(h('div', { class: 'memory-side' }, h('div', { class: 'memory-find', role: 'search' }, this.find.el), this.nav), this.body);
  }

  async show(route: Route): Promise<void> {
    if (route.view !== 'memory') return;
    this.route = route.scope ? route : { ...route, scope: SHARED };
    const content = this.route.file ? this.openFile(this.route.scope!, this.route.file, this.route.line) : this.renderScope();
    // The nav (every scope, counted: a scan of every folder) is asked for once the page's
    // content is here, so the two do not share the server while the person waits for it.
    const nav = (this.scopesLoaded ??= content.catch(() => {}).then(() => this.loadScopes()).then(() => this.renderNav()));
    try {
      await Promise.all([content, nav]);
    } catch (e) {
      this.scopesLoaded = null;  // e.g. a token is needed: try again after signing in
      throw e;
    }
    this.renderNav();
  }

  changed(events: ChangeEvent[]): void {
    const touchesMemory = events.some((e) => e.id === '*' || e.id.startsWith('memory:') || e.id.startsWith('agent:'));
    if (!touchesMemory) return;
    if (events.some((e) => e.id === '*' || e.id.startsWith('agent:'))) this.files.clear();
    for (const e of events) if (e.scope) this.files.delete(e.scope);
    if (!this.el.isConnected) { this.scopesLoaded = null; return; }
    this.scopesLoaded = this.loadScopes().then(() => this.renderNav());
    this.scopesLoaded.catch(() => { this.scopesLoaded = null; });
    if (!this.open) { this.renderScope().catch((e: Error) => toast(e.message, 'error')); return; }
    const id = `memory:${this.open.scope}/${this.open.file.replace(/\.md$/, '')}`;
    if (events.some((e) => e.id === '*' || e.id === id || e.kind === 'RELINKED')) void this.refreshOpen();
  }

  private async loadScopes(): Promise<void> {
    // Paged on the server (a workspace of many agents): every page until a short one.
    const scopes: Scope[] = [];
    for (let after: string | null = null; ;) {
      const data: { memoryScopes: Scope[] } = await gql<{ memoryScopes: Scope[] }>(ops.MEMORY_SCOPES, { after });
      scopes.push(...data.memoryScopes);
      if (data.memoryScopes.length < ops.SCOPES_PAGE) break;
      after = data.memoryScopes[data.memoryScopes.length - 1].scope;
    }
    this.scopes = scopes;
  }

  /** The whole scope after its first page, kept as its files. */
  private restOf(scope: string, first: FileInfo[], count: number): Promise<FileInfo[]> {
    const last = first.at(-1);
    const all = !last || first.length >= count ? Promise.resolve(first)
      : gql<{ memoryScope: { files: FileInfo[] } | null }>(ops.MEMORY_SCOPE_REST, { scope, after: last.file })
        .then((d) => [...first, ...(d.memoryScope?.files ?? [])]);
    all.catch(() => this.files.delete(scope));
    this.files.set(scope, all);
    return all;
  }

  private filesOf(scope: string): Promise<FileInfo[]> {
    let found = this.files.get(scope);
    if (!found) {
      found = gql<{ memoryScope: { files: FileInfo[] } | null }>(ops.MEMORY_SCOPE, { scope }).then((d) => d.memoryScope?.files ?? []);
      found.catch(() => this.files.delete(scope));
      this.files.set(scope, found);
    }
    return found;
  }

  private scope(name: string | undefined): Scope | undefined {
    return this.scopes.find((s) => s.scope === name);
  }

  private renderNav(): void {
    clear(this.nav, h('h2', { class: 'visually-hidden' }, 'Scopes'), h('ul', {}, this.scopes.map((s) => h('li', {},
      h('a', {
        href: routeHash({ view: 'memory', scope: s.scope }),
        'aria-current': s.scope === this.route.scope ? 'page' : null,
        'aria-label': `${s.scope === SHARED ? 'Shared' : s.scope}, ${s.fileCount} notes${s.memoryOff ? ', memory off' : ''}`,
      },
      h('span', { class: 'scope-name' }, s.scope === SHARED ? 'Shared' : s.scope),
      s.memoryOff ? h('span', { class: 'tag off', title: s.defined ? 'Its definition does not set memory: true' : 'It has no definition in agents/' }, 'memory off') : null,
      h('span', { class: 'count' }, String(s.fileCount)))))));
  }

  private async renderScope(): Promise<void> {
    const name = this.route.scope ?? SHARED;
    // Files already here draw at once. Otherwise the heading and the first screenful come in
    // one small answer, drawn as soon as it is here, and the rest of the scope follows.
    let scopeInfo = this.scope(name);
    const cached = this.files.get(name);
    let files: FileInfo[];
    let rest: Promise<FileInfo[]> | null = null;
    if (cached && scopeInfo) {
      files = await cached;
    } else {
      const [query, variables] = ops.firstPage(name);
      const found = (await gql<{ memoryScope: (Scope & { files: FileInfo[] }) | null }>(query, variables)).memoryScope;
      performance.mark('memory:first-page');
      files = found?.files ?? [];
      if (found) {
        const { files: _first, ...info } = found;
        scopeInfo = info;
        rest = cached ?? this.restOf(name, files, found.fileCount);
      }
    }
    if (this.route.file || (this.route.scope ?? SHARED) !== name) return;  // the person moved on
    this.closeEditor();
    const s = scopeInfo && { ...scopeInfo, files };
    if (!s) {
      clear(this.body, h('p', { class: 'empty' }, `There is no memory scope “${this.route.scope}”.`));
      return;
    }
    const title = s.scope === SHARED ? 'Shared' : s.scope;
    const filter = h('input', { type: 'search', 'aria-label': 'Filter notes', placeholder: 'Filter by name or description', value: this.filterText });
    const tbody = h('tbody');
    const row = (f: FileInfo) => h('tr', {},
      h('td', {}, h('a', { href: routeHash({ view: 'memory', scope: s.scope, file: f.file }) }, f.name)),
      h('td', {}, f.type ? h('span', { class: `type t-${f.type.toLowerCase()}` }, f.type.toLowerCase()) : h('span', { class: 'muted' }, '—')),
      h('td', { class: 'num' }, f.age),
      h('td', { class: 'num' }, formatSize(f.size)),
      h('td', { class: 'desc' }, f.description));
    let filling = 0;  // a newer fill (the filter changed) stops an older one's later chunks
    // `from`: the rows before it are drawn already (the rest of the scope arrived).
    const fill = (from = 0) => {
      const q = this.filterText.toLowerCase();
      const rows = s.files.filter((f) => !q || f.name.toLowerCase().includes(q) || f.description.toLowerCase().includes(q));
      const run = ++filling;
      // A scope of thousands of notes: the first screenful is drawn at once and the rest a
      // chunk per frame, so the list shows in one frame instead of after laying out every row.
      if (!from) {
        clear(tbody, rows.length ? rows.slice(0, FIRST_ROWS).map(row) :
          h('tr', {}, h('td', { colspan: 5, class: 'empty' }, s.files.length ? 'No note matches the filter.' : 'No notes yet.')));
      }
      const more = (at: number) => {
        if (run !== filling || at >= rows.length) return;
        tbody.append(...rows.slice(at, at + MORE_ROWS).map(row));
        requestAnimationFrame(() => more(at + MORE_ROWS));
      };
      if (from) more(from); else requestAnimationFrame(() => more(FIRST_ROWS));
    };
    filter.addEventListener('input', () => { this.filterText = filter.value; fill(); });
    fill();
    performance.mark('memory:rows');
    void rest?.then((all) => {
      if (!tbody.isConnected || all === s.files) return;
      const drawn = s.files.length;
      s.files = all;
      if (this.filterText || all.slice(0, drawn).some((f, i) => f.path !== files[i].path)) fill(); else fill(drawn);
    }, () => {});
    const prompt = h('section', { class: 'prompt', 'aria-label': 'Prompt block' });
    const consolidate = () => {
      let panel = this.consolidations.get(s.scope);
      if (!panel) { panel = new ConsolidatePanel(s.scope, title); this.consolidations.set(s.scope, panel); }
      if (!panel.el.isConnected) this.body.querySelector('table.files')?.after(panel.el);
      const button = () => this.body.querySelector<HTMLButtonElement>('button.consolidate');
      button()?.setAttribute('disabled', '');
      void panel.run().finally(() => button()?.removeAttribute('disabled'));
    };
    clear(this.body,
      h('div', { class: 'scope-head' },
        h('h1', {}, title),
        s.memoryOff ? h('span', { class: 'tag off' }, 'memory off') : null,
        h('span', { class: 'spacer' }),
        filter,
        h('button', { type: 'button', class: 'consolidate', disabled: Boolean(this.consolidations.get(s.scope)?.running), onclick: consolidate, title: 'Ask the configured model to merge, fix and tidy this scope; shows the run and its report' }, 'Consolidate'),
        h('button', { type: 'button', class: 'primary', onclick: () => newMemoryDialog(this, s) }, '+ New memory')),
      s.memoryOff ? h('p', { class: 'notice' }, s.defined
        ? `Agent ${s.scope}'s definition does not set memory: true: it keeps these notes but cannot read or write them. You can read or clear them here.`
        : `There is no agents/${s.scope}.md: this folder outlived its agent. You can read or clear its notes here.`) : null,
      s.description ? h('p', { class: 'muted' }, s.description) : null,
      h('table', { class: 'files' },
        h('caption', { class: 'visually-hidden' }, `Notes in ${title}`),
        h('thead', {}, h('tr', {}, ['Name', 'Type', 'Age', 'Size', 'Description'].map((c) => h('th', { scope: 'col' }, c)))),
        tbody),
      this.consolidations.get(s.scope)?.el,
      s.agent ? prompt : null);
    if (s.agent && !s.memoryOff) void this.loadPrompt(s.agent, prompt);
    else if (s.agent) clear(prompt, h('h2', {}, 'Prompt'), h('p', { class: 'muted' }, 'Memory is off: this agent gets no “## Your memory” block.'));
  }

  private async loadPrompt(agent: string, into: HTMLElement): Promise<void> {
    try {
      const data = await gql<{ memoryPrompt: string | null }>(ops.MEMORY_PROMPT, { agent });
      clear(into, h('h2', {}, `What ${agent} sees in its prompt`),
        h('pre', { class: 'prompt-block', tabindex: '0', 'aria-label': `The ## Your memory block of ${agent}` }, data.memoryPrompt ?? '(no block: memory is off)'));
    } catch (e) {
      clear(into, h('p', { class: 'muted' }, `The prompt block is not available: ${(e as Error).message}`));
    }
  }

  private linkFiles: { own: FileInfo[]; shared: FileInfo[] } = { own: [], shared: [] };

  private candidates(scope: string): LinkCandidate[] {
    const { own, shared } = this.linkFiles;
    void scope;
    return [
      ...own.map((f) => ({ name: f.name, detail: f.description, scope: f.scope })),
      ...shared.map((f) => ({ name: f.name, detail: f.description, scope: SHARED })),
      ...(this.entities ?? []),
    ];
  }

  private async loadEntities(): Promise<void> {
    if (this.entities) return;
    try {
      type E = { name: string; title: string };
      const d = await gql<{ workflows: E[]; chats: E[]; workItems: E[] }>(ops.ENTITIES);
      this.entities = [
        ...d.workflows.map((e) => ({ name: e.name, detail: e.title, scope: 'workflow' })),
        ...d.chats.map((e) => ({ name: e.name, detail: e.title, scope: 'chat' })),
        ...d.workItems.map((e) => ({ name: e.name, detail: e.title, scope: 'work item' })),
      ];
    } catch (e) {
      if (!(e instanceof Forbidden)) throw e;
      this.entities = [];  // an agent's token: its own notes and shared ones only
    }
  }

  private async fetchFile(scope: string, file: string): Promise<Loaded | null> {
    const d = await gql<{ memoryFile: Loaded | null }>(ops.MEMORY_FILE, { scope, file });
    return d.memoryFile;
  }

  closeEditor(): void {
    this.open?.editor.destroy();
    this.open = null;
  }

  private async openFile(scope: string, file: string, line?: number): Promise<void> {
    if (this.route.asOf) {  // the note as it was: read-only, its own page (asof.ts)
      this.closeEditor();
      await renderNoteAsOf(this.body, { scope, file }, this.route.asOf, renderDiff);
      return;
    }
    if (this.open && this.open.scope === scope && this.open.file === file) {
      if (line) (await loadEditor()).goToLine(this.open.editor, line);
      if (this.route.history) void showHistory(this.body.querySelector<HTMLElement>('section.history')!, `memory/${scope}/${file}`);
      return;
    }
    this.closeEditor();
    // CodeMirror loads with the first note opened, not with the list. The names that
    // wikilink completion offers (every note of two scopes: the bigger answers) arrive
    // while the note is already shown; completion asks for them when it opens.
    this.linkFiles = { own: [], shared: [] };
    const names = Promise.all([this.filesOf(scope), scope === SHARED ? Promise.resolve([]) : this.filesOf(SHARED), this.loadEntities()]);
    names.catch(() => {});  // completion then offers what it has
    const [loaded, { createEditor, goToLine }] = await Promise.all([this.fetchFile(scope, file), loadEditor()]);
    if (!loaded) {
      // A removed note (the Changes page links here) still has its history.
      const gone = h('section', { class: 'history', 'aria-label': 'History' });
      clear(this.body, h('p', { class: 'empty' }, `memory/${scope}/${file} does not exist (any more).`),
        h('div', { class: 'buttons' }, h('a', { class: 'button', href: routeHash({ view: 'memory', scope }) }, `Back to ${scope === SHARED ? 'Shared' : scope}`),
          h('button', { type: 'button', onclick: () => void showHistory(gone, `memory/${scope}/${file}`) }, 'History')), gone);
      if (this.route.history) void showHistory(gone, `memory/${scope}/${file}`);
      return;
    }
    const holder = h('div', { class: 'editor' });
    const banner = h('div', { class: 'banner', role: 'alert', hidden: true });
    const problemList = h('ul', { class: 'problem-list' });
    const historyBox = h('section', { class: 'history', 'aria-label': 'History' });
    const save = h('button', { type: 'button', class: 'primary', onclick: () => void this.save() }, 'Save');
    const status = h('span', { class: 'muted', role: 'status' }, '');
    clear(this.body,
      h('div', { class: 'crumbs' }, h('a', { href: routeHash({ view: 'memory', scope }) }, `← ${scope === SHARED ? 'Shared' : scope}`)),
      h('div', { class: 'scope-head' },
        h('h1', {}, loaded.info.path),
        loaded.info.type ? h('span', { class: `type t-${loaded.info.type.toLowerCase()}` }, loaded.info.type.toLowerCase()) : null,
        h('span', { class: 'muted' }, `${formatSize(loaded.info.size)} · ${loaded.info.age}`),
        h('span', { class: 'spacer' }), status,
        save,
        h('button', { type: 'button', onclick: () => { if (this.open) void renameDialog(this, this.open); } }, 'Rename'),
        h('button', { type: 'button', onclick: () => void showHistory(historyBox, loaded.info.path) }, 'History'),
        h('button', { type: 'button', title: 'See this note as it was at an earlier moment', onclick: () => void openPreviousVersion({ scope, file }) }, 'As of…'),
        h('button', { type: 'button', class: 'danger', onclick: () => { if (this.open) removeDialog(this, this.open); } }, 'Delete')),
      banner, holder,
      h('section', { 'aria-label': 'Problems of this note' }, h('h2', {}, 'Problems'), problemList),
      nearbySection(loaded.info.path, (at) => { if (this.open) editorModule?.goToLine(this.open.editor, at); },
        (oldStr, newStr) => this.linkMention(oldStr, newStr)),
      historyBox);
    const editor = createEditor(holder, loaded.text, {
      candidates: () => this.candidates(scope),
      onChange: () => { if (this.open) { this.open.dirty = true; status.textContent = 'Unsaved changes'; } },
      onSave: () => void this.save(),
    }, `Markdown of ${loaded.info.path}`);
    this.open = { scope, file, hash: loaded.hash, editor, dirty: false, conflict: false, problems: loaded.problems, banner, problemList };
    void names.then(([own, shared]) => { if (this.open?.editor === editor) this.linkFiles = { own, shared }; }, () => {});
    this.setProblems(loaded.problems);
    if (line) goToLine(editor, line);
    if (this.route.history) void showHistory(historyBox, loaded.info.path);
  }

  private setProblems(problems: Problem[]): void {
    const o = this.open;
    if (!o) return;
    o.problems = problems;
    editorModule?.showProblems(o.editor, problems);
    clear(o.problemList, problems.length ? problems.map((p) => h('li', { class: p.severity.toLowerCase() },
      h('button', { type: 'button', class: 'link', onclick: () => p.line && editorModule?.goToLine(o.editor, p.line) }, problemPlace(p)),
      ' ', h('code', {}, p.code), ' ', p.message, p.fix ? h('span', { class: 'fix' }, ` Fix: ${p.fix}`) : null)) :
      h('li', { class: 'muted' }, 'No problems.'));
  }

  /** The file changed (on disk, or its links): reload it unless the person is editing. */
  async refreshOpen(): Promise<void> {
    const o = this.open;
    if (!o) return;
    const loaded = await this.fetchFile(o.scope, o.file);
    if (this.open !== o) return;
    if (!loaded) {
      o.banner.hidden = false;
      clear(o.banner, `This note was deleted or moved. Your text is still here: Save puts it back as memory/${o.scope}/${o.file}.`);
      o.hash = '';
      return;
    }
    if (loaded.hash === o.hash) { this.setProblems(loaded.problems); return; }
    if (!o.dirty) {
      o.editor.dispatch({ changes: { from: 0, to: o.editor.state.doc.length, insert: loaded.text } });
      o.dirty = false;
      o.hash = loaded.hash;
      this.setProblems(loaded.problems);
      return;
    }
    if (o.conflict) return;  // the conflict panel already shows both versions
    o.banner.hidden = false;
    clear(o.banner, 'This note changed on disk while you were editing. Saving will show both versions.');
  }

  private async save(): Promise<void> {
    const o = this.open;
    if (!o) return;
    const content = o.editor.state.doc.toString();
    let result: WriteResult;
    try {
      result = (await gql<{ memoryWrite: WriteResult }>(ops.MEMORY_WRITE, { scope: o.scope, file: o.file, content, expectedHash: o.hash })).memoryWrite;
    } catch (e) {
      toast(`Not saved: ${(e as Error).message}`, 'error');
      return;
    }
    if (!result.ok && result.refusal?.code === 'CONFLICT') {
      await this.conflict(content);
      return;
    }
    if (!result.ok) {
      toast(`Not saved: ${result.refusal?.message}`, 'error');
      return;
    }
    o.hash = result.hash ?? o.hash;
    o.dirty = false;
    o.banner.hidden = true;
    toast(`Saved ${result.path}`);
    const loaded = await this.fetchFile(o.scope, o.file);
    if (loaded && this.open === o) this.setProblems(loaded.problems);
    (this.body.querySelector('[role=status]') as HTMLElement | null)?.replaceChildren('Saved');
  }

  /** A mention's "Link": its exact str_replace (old_str once in the note, as the memory
   *  tool's), applied to the note as opened and written as Save writes it (memoryWrite with
   *  the opened hash, so the history keeps it and a note changed since is refused). */
  private async linkMention(oldStr: string, newStr: string): Promise<boolean> {
    const o = this.open;
    if (!o) return false;
    if (o.dirty) { toast('Not linked: save or undo your changes first.', 'error'); return false; }
    const text = o.editor.state.doc.toString();
    const at = text.indexOf(oldStr);
    if (at < 0 || text.indexOf(oldStr, at + 1) >= 0) {
      toast('Not linked: the note changed since the mention was found. Reload it.', 'error');
      return false;
    }
    const content = text.slice(0, at) + newStr + text.slice(at + oldStr.length);
    let result: WriteResult;
    try {
      result = (await gql<{ memoryWrite: WriteResult }>(ops.MEMORY_WRITE, { scope: o.scope, file: o.file, content, expectedHash: o.hash })).memoryWrite;
    } catch (e) {
      toast(`Not linked: ${(e as Error).message}`, 'error');
      return false;
    }
    if (!result.ok) {
      toast(`Not linked: ${result.refusal?.message}`, 'error');
      if (result.refusal?.code === 'CONFLICT') void this.refreshOpen();
      return false;
    }
    if (this.open !== o) return true;
    o.editor.dispatch({ changes: { from: at, to: at + oldStr.length, insert: newStr } });
    o.dirty = false;
    o.hash = result.hash ?? o.hash;
    (this.body.querySelector('[role=status]') as HTMLElement | null)?.replaceChildren('Saved');
    toast(`Linked: ${newStr}`);
    const loaded = await this.fetchFile(o.scope, o.file);
    if (loaded && this.open === o) this.setProblems(loaded.problems);
    return true;
  }

  /** Someone else wrote the file since it was opened: show both, lose neither. */
  private async conflict(mine: string): Promise<void> {
    const o = this.open;
    if (!o) return;
    const theirs = await this.fetchFile(o.scope, o.file);
    const diff = diffLines(theirs?.text ?? '', mine);
    o.conflict = true;
    o.banner.hidden = false;
    clear(o.banner,
      h('h2', {}, 'Conflict: not saved'),
      h('p', {}, theirs ? 'Someone else saved this note after you opened it. Both versions are kept: yours is in the editor, theirs is on disk.' :
        'This note was deleted after you opened it. Your version is in the editor.'),
      h('div', { class: 'conflict' },
        h('section', { 'aria-label': 'On disk now' }, h('h3', {}, 'On disk now'), h('pre', { tabindex: '0' }, theirs?.text ?? '(deleted)')),
        h('section', { 'aria-label': 'Your version' }, h('h3', {}, 'Your version'), h('pre', { tabindex: '0' }, mine)),
        h('section', { 'aria-label': 'Differences' }, h('h3', {}, 'Differences (disk → yours)'), renderDiff(diff))),
      h('div', { class: 'buttons' },
        h('button', { type: 'button', class: 'primary', onclick: () => {
          o.hash = theirs?.hash ?? '';
          o.banner.hidden = true;
          o.conflict = false;
          void this.save();
        } }, 'Overwrite with mine'),
        h('button', { type: 'button', onclick: () => {
          if (!theirs) return;
          o.editor.dispatch({ changes: { from: 0, to: o.editor.state.doc.length, insert: theirs.text } });
          o.hash = theirs.hash;
          o.dirty = false;
          o.banner.hidden = true;
          o.conflict = false;
          this.setProblems(theirs.problems);
        } }, 'Take theirs (drop mine)')));
    o.banner.querySelector('button')?.focus();
  }
}
