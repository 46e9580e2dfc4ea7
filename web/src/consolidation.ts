// Pure helpers of the Consolidate panel: the memoryConsolidation subscription's messages
// (graphql-transport-ws) turned into progress lines and a report. No DOM: node's test runner
// covers it (test/consolidation.test.ts).

export type Change = { command: string; paths: string[] };
export type ConsolidationReport = {
  scope: string; status: string; message: string; summary: string; paths: string[];
  changes: Change[]; review: string[]; turns: number; usage: { totalTokens: number };
};
export type ConsolidationEvent = {
  kind: string; text: string; turn: number; ok: boolean | null;
  usage: { totalTokens: number } | null; report: ConsolidationReport | null;
};

const REPORT_FIELDS = 'scope status message summary paths changes review turns usage { totalTokens }';

export const CONSOLIDATION_SUBSCRIPTION = `subscription Consolidate($scope: String!) { memoryConsolidation(scope: $scope) {
  kind text turn ok usage { totalTokens } report { ${REPORT_FIELDS} } } }`;

export const CONSOLIDATE_MUTATION = `mutation Consolidate($scope: String!) { consolidateMemory(scope: $scope) { ${REPORT_FIELDS} } }`;

/** What one server message means for the run. */
export type Step =
  | { kind: 'ack' }
  | { kind: 'event'; event: ConsolidationEvent }
  | { kind: 'error'; message: string }
  | { kind: 'complete' }
  | { kind: 'ping' }
  | { kind: 'ignore' };

type Message = { type?: string; id?: string; payload?: unknown };

export function readMessage(raw: string, id: string): Step {
  let msg: Message;
  try { msg = JSON.parse(raw) as Message; } catch { return { kind: 'ignore' }; }
  if (msg.type === 'connection_ack') return { kind: 'ack' };
  if (msg.type === 'ping') return { kind: 'ping' };
  if (msg.id !== id) return { kind: 'ignore' };
  if (msg.type === 'complete') return { kind: 'complete' };
  if (msg.type === 'error') return { kind: 'error', message: errorText(msg.payload) };
  if (msg.type === 'next') {
    const p = msg.payload as { data?: { memoryConsolidation?: ConsolidationEvent | null } | null; errors?: unknown } | undefined;
    if (p?.errors) return { kind: 'error', message: errorText(p.errors) };
    const event = p?.data?.memoryConsolidation;
    if (event) return { kind: 'event', event };
  }
  return { kind: 'ignore' };
}

function errorText(errors: unknown): string {
  if (Array.isArray(errors)) {
    const texts = errors.map((e) => (e && typeof e === 'object' && 'message' in e ? String((e as { message: unknown }).message) : String(e)));
    if (texts.length) return texts.join('; ');
  }
  return 'the consolidation failed';
}

/** One line of the live log, e.g. `turn 2 · ✓ delete /memories/x.md`. */
export function describeEvent(e: ConsolidationEvent): string {
  const turn = e.turn ? `turn ${e.turn} · ` : '';
  if (e.kind === 'tool-call') return `${turn}${e.ok === false ? '✗' : '✓'} ${e.text}`;
  if (e.kind === 'usage' && e.usage) return `${turn}${e.usage.totalTokens.toLocaleString('en')} tokens so far`;
  return `${turn}${e.text}`;
}

/** The report's headline: `done after 2 turns: 1 change, 240 tokens`. */
export function reportHeadline(r: ConsolidationReport): string {
  const n = r.changes.length;
  return `${r.status} after ${r.turns} ${r.turns === 1 ? 'turn' : 'turns'}: ${n} ${n === 1 ? 'change' : 'changes'}, ` +
    `${r.usage.totalTokens.toLocaleString('en')} tokens`;
}
