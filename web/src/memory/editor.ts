// The markdown editor: CodeMirror 6 with wikilink completion and the note's problems inline.
import { autocompletion, closeBrackets, completionKeymap, type CompletionContext, type CompletionResult } from '@codemirror/autocomplete';
import { defaultKeymap, history, historyKeymap, indentWithTab } from '@codemirror/commands';
import { markdownKeymap, markdownLanguage } from '@codemirror/lang-markdown';
import { defaultHighlightStyle, LanguageSupport, syntaxHighlighting } from '@codemirror/language';
import { lintGutter, setDiagnostics, type Diagnostic } from '@codemirror/lint';
import { highlightSelectionMatches, searchKeymap } from '@codemirror/search';
import { EditorState } from '@codemirror/state';
import { EditorView, drawSelection, highlightActiveLine, highlightActiveLineGutter, keymap, lineNumbers } from '@codemirror/view';
import { rankCandidates, wikilinkQuery, type LinkCandidate, type Problem } from '../logic';

export type EditorHooks = {
  candidates: () => LinkCandidate[];
  onChange: () => void;
  onSave: () => void;
};

export function createEditor(parent: HTMLElement, text: string, hooks: EditorHooks, label: string): EditorView {
  const complete = (ctx: CompletionContext): CompletionResult | null => {
    const line = ctx.state.doc.lineAt(ctx.pos);
    const found = wikilinkQuery(line.text.slice(0, ctx.pos - line.from));
    if (!found) return null;
    const options = rankCandidates(found.query, hooks.candidates()).map((c) => ({
      label: c.name, detail: c.scope, info: c.detail || undefined, type: 'text',
      apply: (view: EditorView, _c: unknown, from: number, to: number) => {
        const after = view.state.doc.sliceString(to, to + 2);
        const insert = after === ']]' ? c.name : `${c.name}]]`;
        view.dispatch({ changes: { from, to, insert }, selection: { anchor: from + c.name.length + 2 } });
      },
    }));
    return { from: line.from + found.from, options, filter: false };
  };
  return new EditorView({
    parent,
    state: EditorState.create({
      doc: text,
      extensions: [
        lineNumbers(), highlightActiveLineGutter(), history(), drawSelection(), highlightActiveLine(),
        closeBrackets(), highlightSelectionMatches(),
        // The markdown language without markdown() itself, which pulls HTML, CSS and JS parsers in.
        new LanguageSupport(markdownLanguage), syntaxHighlighting(defaultHighlightStyle),
        EditorView.lineWrapping, lintGutter(),
        autocompletion({ override: [complete], activateOnTyping: true }),
        keymap.of([
          { key: 'Mod-s', preventDefault: true, run: () => { hooks.onSave(); return true; } },
          ...completionKeymap, ...markdownKeymap, ...defaultKeymap, ...historyKeymap, ...searchKeymap, indentWithTab,
        ]),
        EditorView.contentAttributes.of({ 'aria-label': label }),
        EditorView.updateListener.of((u) => { if (u.docChanged) hooks.onChange(); }),
      ],
    }),
  });
}

/** Problems (1-based line/column in characters) as CodeMirror diagnostics. */
export function diagnosticsOf(state: EditorState, problems: Problem[]): Diagnostic[] {
  const out: Diagnostic[] = [];
  for (const p of problems) {
    const lineNo = Math.min(Math.max(1, p.line ?? 1), state.doc.lines);
    const line = state.doc.line(lineNo);
    const from = Math.min(line.to, line.from + Math.max(0, (p.column ?? 1) - 1));
    const to = p.length ? Math.min(line.to, from + p.length) : p.column ? Math.min(line.to, Math.max(from + 1, from)) : line.to;
    out.push({
      from, to: Math.max(to, from), severity: p.severity === 'ERROR' ? 'error' : 'warning', source: p.code,
      message: p.fix ? `${p.message} (fix: ${p.fix})` : p.message,
    });
  }
  return out;
}

export function showProblems(view: EditorView, problems: Problem[]): void {
  view.dispatch(setDiagnostics(view.state, diagnosticsOf(view.state, problems)));
}

export function goToLine(view: EditorView, lineNo: number): void {
  const line = view.state.doc.line(Math.min(Math.max(1, lineNo), view.state.doc.lines));
  view.dispatch({ selection: { anchor: line.from }, effects: EditorView.scrollIntoView(line.from, { y: 'center' }) });
  view.focus();
}
