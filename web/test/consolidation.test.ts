import assert from 'node:assert/strict';
import { test } from 'node:test';
import { describeEvent, readMessage, reportHeadline, type ConsolidationEvent, type ConsolidationReport } from '../src/consolidation';

const report: ConsolidationReport = {
  scope: 'on-call', status: 'done', message: '', summary: 'Changed: one', paths: ['memory/on-call/a.md'],
  changes: [{ command: 'delete', paths: ['memory/on-call/a.md'] }], review: [], turns: 2, usage: { totalTokens: 1240 },
};
const event = (over: Partial<ConsolidationEvent>): ConsolidationEvent => ({ kind: 'started', text: 'started', turn: 0, ok: null, usage: null, report: null, ...over });

test('subscription messages: ack, ping, events of our id, errors, completion', () => {
  assert.deepEqual(readMessage('{"type":"connection_ack"}', '1'), { kind: 'ack' });
  assert.deepEqual(readMessage('{"type":"ping"}', '1'), { kind: 'ping' });
  assert.deepEqual(readMessage('not json', '1'), { kind: 'ignore' });
  const e = event({ kind: 'tool-call', text: 'delete /memories/a.md', turn: 1, ok: true });
  assert.deepEqual(readMessage(JSON.stringify({ type: 'next', id: '1', payload: { data: { memoryConsolidation: e } } }), '1'), { kind: 'event', event: e });
  assert.deepEqual(readMessage(JSON.stringify({ type: 'next', id: '2', payload: { data: { memoryConsolidation: e } } }), '1'), { kind: 'ignore' });
  // A refusal (no endpoint configured, a forbidden scope) comes as errors: their message is shown.
  const refused = { type: 'next', id: '1', payload: { data: null, errors: [{ message: 'no model endpoint is configured' }] } };
  assert.deepEqual(readMessage(JSON.stringify(refused), '1'), { kind: 'error', message: 'no model endpoint is configured' });
  assert.deepEqual(readMessage(JSON.stringify({ type: 'error', id: '1', payload: [{ message: 'bad' }, { message: 'worse' }] }), '1'), { kind: 'error', message: 'bad; worse' });
  assert.deepEqual(readMessage(JSON.stringify({ type: 'error', id: '1', payload: {} }), '1'), { kind: 'error', message: 'the consolidation failed' });
  assert.deepEqual(readMessage('{"type":"complete","id":"1"}', '1'), { kind: 'complete' });
});

test('progress lines name the turn, the call and whether it worked', () => {
  assert.equal(describeEvent(event({ kind: 'started', text: 'consolidating on-call' })), 'consolidating on-call');
  assert.equal(describeEvent(event({ kind: 'tool-call', text: 'delete /memories/a.md', turn: 1, ok: true })), 'turn 1 · ✓ delete /memories/a.md');
  assert.equal(describeEvent(event({ kind: 'tool-call', text: 'view /x', turn: 2, ok: false })), 'turn 2 · ✗ view /x');
  assert.equal(describeEvent(event({ kind: 'usage', text: 'u', turn: 1, usage: { totalTokens: 12345 } })), 'turn 1 · 12,345 tokens so far');
});

test('the report headline counts turns, changes and tokens', () => {
  assert.equal(reportHeadline(report), 'done after 2 turns: 1 change, 1,240 tokens');
  assert.equal(reportHeadline({ ...report, status: 'turn-cap', turns: 1, changes: [], usage: { totalTokens: 5 } }), 'turn-cap after 1 turn: 0 changes, 5 tokens');
});
