import assert from 'node:assert/strict';
import { test } from 'node:test';
import { asDateTime, isOutOfHistory, justBefore, oldestShowable, previousVersionMoment, type Write } from '../src/time/asof';

const write = (at: string): Write => ({ at, actor: 'agent:on-call', via: 'rest', command: 'put', path: 'memory/on-call/a.md', newPath: null });

test('a write offers the moments just before it and at it', () => {
  assert.equal(justBefore('2026-12-06T08:46:14.123456Z'), '2026-12-06T08:46:14.122Z');
  assert.equal(justBefore('2026-12-06T08:46:14Z'), '2026-12-06T08:46:13.999Z');
  assert.equal(justBefore('garbage'), null);
  // "As of…" opens the version the newest write replaced (records come newest first).
  assert.equal(previousVersionMoment([write('2026-12-06T09:00:00Z'), write('2026-12-06T08:00:00Z')]), '2026-12-06T08:59:59.999Z');
  assert.equal(previousVersionMoment([]), null);
});

test("the server's refusal of a moment names the oldest it can show, and the UI finds it", () => {
  const before = 'asOf: the history begins at 2026-12-06T08:38:46.863269Z: brain keeps nothing from before it, so it cannot show the memory at 2026-12-06T08:00:00Z; ask for a moment at or after 2026-12-06T08:38:46.863269Z';
  assert.equal(oldestShowable(before), '2026-12-06T08:38:46.863269Z');
  assert.equal(isOutOfHistory(before), true);
  const dropped = 'asOf: the memory at 2026-12-06T08:38:47Z cannot be shown exactly: the content some notes had then is no longer kept (history retention or its cap). The oldest moment brain can show is 2026-12-06T08:38:48.062036Z';
  assert.equal(oldestShowable(dropped), '2026-12-06T08:38:48.062036Z');
  assert.equal(isOutOfHistory(dropped), true);
  // The words every front end gives now (brain/tool/asof/oldest.py).
  const now = 'asOf: brain cannot show the memory as it was at 2020-01-01T00:00:00Z: the history begins at 2026-12-06T19:23:50.111515Z, and brain keeps nothing from before it. The oldest moment brain can show is 2026-12-06T19:23:50.111515Z: ask for a moment at or after it';
  assert.equal(oldestShowable(now), '2026-12-06T19:23:50.111515Z');
  assert.equal(isOutOfHistory(now), true);
  assert.equal(oldestShowable('asOf: 2026-12-07T00:00:00Z is in the future'), null);
  assert.equal(isOutOfHistory('Memory.links(first:): 500 is out of range'), false);
});

test('moments go to the server as ISO 8601; ages become the moment they name', () => {
  const now = Date.parse('2026-12-06T09:00:00Z');
  assert.equal(asDateTime('24h', now), '2026-12-05T09:00:00.000Z');
  assert.equal(asDateTime('2026-12-01T09:30:00Z', now), '2026-12-01T09:30:00Z');
  assert.equal(asDateTime(' 2026-12-01T09:30:00.123456Z ', now), '2026-12-01T09:30:00.123456Z');
  assert.equal(asDateTime('yesterday', now), null);
});
