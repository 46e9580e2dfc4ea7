// Pure helpers the views share: formatting, names, diffs, backoff, wikilink completion and
// problem filters. No DOM here, so node's test runner covers all of it (test/logic.test.ts).

export const MEMORY_TYPES = ['user', 'feedback', 'project', 'reference'] as const;

/** Bytes as people read them: 812 B, 2.4 KB, 1.1 MB. */
export function formatSize(bytes: number): string {
  if (bytes < 1000) return `${bytes} B`;
  if (bytes < 1_000_000) return `${(bytes / 1000).toFixed(1)} KB`;
  return `${(bytes / 1_000_000).toFixed(1)} MB`;
}

/** The frontmatter skeleton seeds/000 asks a new memory to start with. */
export function newMemorySkeleton(type: string = 'project'): string {
  return `---\ndescription: \ntype: ${type}\n---\n\n`;
}

/**
 * A file name for what a person typed: kebab-case, `.md` added. Returns an error message
 * instead when nothing usable is left (the server checks again; this only guides).
 */
export function memoryFileName(typed: string): { file: string } | { error: string } {
  const stem = typed.trim().replace(/\.md$/i, '');
  if (!stem) return { error: 'Give the note a name, e.g. release-checklist' };
  if (stem.includes('/')) return { error: 'A memory lives directly in its scope folder: no "/" in the name' };
  const kebab = stem
    .normalize('NFC')
    .replace(/([a-z0-9])([A-Z])/g, '$1-$2')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, '-')
    .replace(/^-+|-+$/g, '');
  if (!kebab) return { error: 'Use letters or digits in the name' };
  return { file: `${kebab}.md` };
}

/** Reconnect delay after `attempt` failures: 0.5 s doubling to 15 s, with ±20% jitter. */
export function backoffDelay(attempt: number, random: () => number = Math.random): number {
  const base = Math.min(15_000, 500 * 2 ** Math.max(0, attempt));
  return Math.round(base * (0.8 + 0.4 * random()));
}

export type DiffLine = { op: ' ' | '-' | '+'; text: string; oldLine?: number; newLine?: number };

/** Line diff (LCS); big inputs fall back to a prefix/suffix trim so it never blows up. */
export function diffLines(before: string, after: string): DiffLine[] {
  const a = before.split('\n');
  const b = after.split('\n');
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) { endA--; endB--; }
  const out: DiffLine[] = [];
  for (let i = 0; i < start; i++) out.push({ op: ' ', text: a[i], oldLine: i + 1, newLine: i + 1 });
  const midA = a.slice(start, endA);
  const midB = b.slice(start, endB);
  if (midA.length * midB.length > 4_000_000) {
    midA.forEach((text, i) => out.push({ op: '-', text, oldLine: start + i + 1 }));
    midB.forEach((text, i) => out.push({ op: '+', text, newLine: start + i + 1 }));
  } else {
    const n = midA.length;
    const m = midB.length;
    const lcs: Uint32Array[] = Array.from({ length: n + 1 }, () => new Uint32Array(m + 1));
    for (let i = n - 1; i >= 0; i--) {
      for (let j = m - 1; j >= 0; j--) {
        lcs[i][j] = midA[i] === midB[j] ? lcs[i + 1][j + 1] + 1 : Math.max(lcs[i + 1][j], lcs[i][j + 1]);
      }
    }
    let i = 0;
    let j = 0;
    while (i < n || j < m) {
      if (i < n && j < m && midA[i] === midB[j]) {
        out.push({ op: ' ', text: midA[i], oldLine: start + i + 1, newLine: start + j + 1 });
        i++; j++;
      } else if (i < n && (j >= m || lcs[i + 1][j] >= lcs[i][j + 1])) {
        out.push({ op: '-', text: midA[i], oldLine: start + i + 1 });
        i++;
      } else {
        out.push({ op: '+', text: midB[j], newLine: start + j + 1 });
        j++;
      }
    }
  }
  for (let k = 0; k < a.length - endA; k++) {
    out.push({ op: ' ', text: a[endA + k], oldLine: endA + k + 1, newLine: endB + k + 1 });
  }
  return out;
}

export type DiffRow = DiffLine | { op: '…'; skipped: number };

/** Keeps `context` unchanged lines around each change; longer unchanged runs become one row. */
export function diffHunks(lines: DiffLine[], context = 3): DiffRow[] {
  const near = new Array<boolean>(lines.length).fill(false);
  lines.forEach((l, i) => {
    if (l.op === ' ') return;
    for (let k = Math.max(0, i - context); k <= Math.min(lines.length - 1, i + context); k++) near[k] = true;
  });
  const out: DiffRow[] = [];
  let skipped = 0;
  lines.forEach((l, i) => {
    if (near[i]) {
      if (skipped) out.push({ op: '…', skipped });
      skipped = 0;
      out.push(l);
    } else {
      skipped++;
    }
  });
  if (skipped) out.push({ op: '…', skipped });
  return out;
}

/** The text a `[[` completion replaces: from after `[[` (or `[[x|`-free) to the cursor, or null. */
export function wikilinkQuery(lineBefore: string): { query: string; from: number } | null {
  const open = lineBefore.lastIndexOf('[[');
  if (open < 0) return null;
  const inside = lineBefore.slice(open + 2);
  if (inside.includes(']]') || inside.includes('|') || inside.includes('#')) return null;
  return { query: inside, from: open + 2 };
}

export type LinkCandidate = { name: string; detail: string; scope?: string };

/** Candidates for a wikilink query: prefix matches first, then substring, case-insensitive. */
export function rankCandidates(query: string, all: LinkCandidate[], limit = 50): LinkCandidate[] {
  const q = query.toLowerCase();
  const prefix: LinkCandidate[] = [];
  const inner: LinkCandidate[] = [];
  for (const c of all) {
    const name = c.name.toLowerCase();
    if (name.startsWith(q)) prefix.push(c);
    else if (q && name.includes(q)) inner.push(c);
  }
  const byName = (x: LinkCandidate, y: LinkCandidate) => x.name.localeCompare(y.name);
  return [...prefix.sort(byName), ...inner.sort(byName)].slice(0, limit);
}

export type Problem = {
  code: string; severity: 'ERROR' | 'WARNING'; path: string; message: string;
  line: number | null; column: number | null; length?: number | null; fix: string | null; target?: string | null;
};

/** `memory/<scope>/<file>` -> scope; other paths (agents/, workflows/ …) -> null. */
export function scopeOfPath(path: string): string | null {
  const m = /^memory\/([^/]+)(?:\/|$)/.exec(path);
  return m ? m[1] : null;
}

export type ProblemFilter = { code?: string; severity?: string; scope?: string };

export function filterProblems(problems: Problem[], f: ProblemFilter): Problem[] {
  return problems.filter((p) =>
    (!f.code || p.code === f.code) &&
    (!f.severity || p.severity === f.severity) &&
    (!f.scope || scopeOfPath(p.path) === f.scope));
}

/** `file:line:column`, as `brain check` prints a problem's place. */
export function problemPlace(p: Problem): string {
  return p.line == null ? p.path : `${p.path}:${p.line}${p.column == null ? '' : `:${p.column}`}`;
}

/** Where a problem's path opens in the review: a memory file, or nothing to open. */
export function noteOfPath(path: string): { scope: string; file: string } | null {
  const m = /^memory\/([^/]+)\/([^/]+\.md)$/.exec(path);
  return m ? { scope: m[1], file: m[2] } : null;
}

/** A node id's kind: `memory:shared/x` -> memory. */
export function kindOfId(id: string): string {
  return id.slice(0, Math.max(0, id.indexOf(':')));
}

/** `memory:<scope>/<name>` -> the file it lives in. */
export function noteOfId(id: string): { scope: string; file: string } | null {
  const m = /^memory:([^/]+)\/(.+)$/.exec(id);
  return m ? { scope: m[1], file: `${m[2]}.md` } : null;
}

/**
 * Hash routes: #/memory, #/memory/<scope>, #/memory/<scope>/<file>[?line=N][?history=1][?asOf=T],
 * #/graph[?node=id][&asOf=T], #/problems, #/changes[?since=7d][&until=T][&agent=name].
 */
export type Route =
  | { view: 'memory'; scope?: string; file?: string; line?: number; history?: boolean; asOf?: string }
  | { view: 'graph'; node?: string; cluster?: string; asOf?: string }
  | { view: 'problems' }
  | { view: 'changes'; since?: string; until?: string; agent?: string };

export function parseRoute(hash: string): Route {
  const [path, query = ''] = hash.replace(/^#/, '').split('?', 2);
  const parts = path.split('/').filter(Boolean).map(decodeURIComponent);
  const params = new URLSearchParams(query);
  const param = (name: string) => params.get(name) || undefined;
  // A moment in time is added only when given, so routes without one read as before.
  const asOf = param('asOf');
  if (parts[0] === 'graph') return { view: 'graph', node: param('node'), ...(param('cluster') ? { cluster: param('cluster') } : {}), ...(asOf ? { asOf } : {}) };
  if (parts[0] === 'problems') return { view: 'problems' };
  if (parts[0] === 'changes') return { view: 'changes', since: param('since'), until: param('until'), agent: param('agent') };
  const line = Number(params.get('line'));
  const note = Boolean(parts[2]);
  return {
    view: 'memory', scope: parts[1], file: parts[2],
    line: Number.isInteger(line) && line > 0 ? line : undefined,
    ...(note && params.get('history') === '1' ? { history: true } : {}),
    ...(note && asOf ? { asOf } : {}),
  };
}

function withQuery(path: string, params: Record<string, string | number | boolean | undefined>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== false && v !== '') q.set(k, v === true ? '1' : String(v));
  const text = q.toString();
  return text ? `${path}?${text}` : path;
}

export function routeHash(r: Route): string {
  if (r.view === 'graph') return withQuery('#/graph', { node: r.node, cluster: r.cluster, asOf: r.asOf });
  if (r.view === 'problems') return '#/problems';
  if (r.view === 'changes') return withQuery('#/changes', { since: r.since, until: r.until, agent: r.agent });
  let h = '#/memory';
  if (r.scope) h += `/${encodeURIComponent(r.scope)}`;
  if (r.scope && r.file) h += `/${encodeURIComponent(r.file)}`;
  return withQuery(h, { line: r.line, history: r.scope && r.file ? r.history : undefined, asOf: r.scope && r.file ? r.asOf : undefined });
}

export type SnippetPart = { text: string; mark: boolean };

/**
 * The search API's snippet marks each matched word `**word**`: split it into plain and marked
 * parts, which the UI renders as text and <mark> elements (never as HTML). An unpaired `**`
 * stays literal text. Given the `terms` the note matched, a pair around anything else (the
 * note's own markdown bold) stays literal too, so only matched words are marked.
 */
export function snippetParts(snippet: string, terms?: readonly string[]): SnippetPart[] {
  const wanted = terms ? new Set(terms.map((t) => t.toLowerCase())) : null;
  const out: SnippetPart[] = [];
  const push = (text: string, mark: boolean) => {
    if (!text) return;
    const last = out[out.length - 1];
    if (last && last.mark === mark) last.text += text; else out.push({ text, mark });
  };
  let rest = snippet;
  for (;;) {
    const open = rest.indexOf('**');
    const close = open < 0 ? -1 : rest.indexOf('**', open + 2);
    if (open < 0 || close < 0 || close === open + 2) { push(rest, false); break; }
    push(rest.slice(0, open), false);
    const inner = rest.slice(open + 2, close);
    if (!wanted || wanted.has(inner.toLowerCase())) push(inner, true);
    else push(`**${inner}**`, false);
    rest = rest.slice(close + 2);
  }
  return out;
}

export type HistoryVersions = { command: string; before: string | null; after: string | null; beforeText: string | null; afterText: string | null };

/**
 * What a history record changed: the diff of its two versions (a new file diffs from empty,
 * a delete to empty), nothing for a rename that kept the text, or which version was not kept.
 */
export function historyDiff(r: HistoryVersions): { kind: 'diff'; lines: DiffLine[] } | { kind: 'same' } | { kind: 'missing'; message: string } {
  if (r.before === r.after) return { kind: 'same' };
  const missingBefore = r.before !== null && r.beforeText === null;
  const missingAfter = r.after !== null && r.afterText === null;
  if (missingBefore || missingAfter) {
    const which = missingBefore && missingAfter ? 'Neither version' : missingBefore ? 'The version before' : 'The version after';
    return { kind: 'missing', message: `${which} of this write was not kept (written before brain kept versions, or over the file cap), so there is no diff.` };
  }
  return { kind: 'diff', lines: diffLines(r.beforeText ?? '', r.afterText ?? '') };
}
