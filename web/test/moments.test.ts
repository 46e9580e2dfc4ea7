import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ageSeconds, checkWindow, formatMoment, inputToIso, momentOf, msToInput, msToIso, PRESETS, windowLabel } from '../src/time/moments';

const NOW = Date.parse('2026-12-06T09:00:00Z');

test('presets are ages the server reads, ending now', () => {
  assert.deepEqual(PRESETS.map((p) => p.id), ['24h', '7d', '30d']);
  assert.deepEqual(PRESETS.map((p) => ageSeconds(p.id)), [86_400, 7 * 86_400, 30 * 86_400]);
  assert.equal(momentOf('24h', NOW), Date.parse('2026-12-05T09:00:00Z'));
  assert.equal(momentOf('2w', NOW), NOW - 14 * 86_400_000);
  assert.equal(ageSeconds('7 d'), 7 * 86_400);  // as the server's parse_moment allows
  assert.equal(ageSeconds('7days'), null);
  assert.equal(ageSeconds('-7d'), null);
});

test('ISO moments are UTC unless they name a zone; anything else is not a moment', () => {
  assert.equal(momentOf('2026-12-01T09:30:00Z', NOW), Date.parse('2026-12-01T09:30:00Z'));
  assert.equal(momentOf('2026-12-01T09:30', NOW), Date.parse('2026-12-01T09:30:00Z'));
  assert.equal(momentOf('2026-12-01T09:30:00+02:00', NOW), Date.parse('2026-12-01T07:30:00Z'));
  assert.equal(momentOf('2026-12-01', NOW), Date.parse('2026-12-01T00:00:00Z'));
  assert.equal(momentOf('tuesday', NOW), null);
  assert.equal(momentOf('2026-13-45T99:00', NOW), null);
});

test('datetime inputs are read and written as UTC, to the minute', () => {
  assert.equal(inputToIso('2026-12-01T09:30'), '2026-12-01T09:30:00Z');
  assert.equal(inputToIso('2026-12-01T09:30:15'), '2026-12-01T09:30:15Z');
  assert.equal(inputToIso(''), null);
  assert.equal(inputToIso('2026-12-01'), null);  // half a moment is not one
  assert.equal(msToInput(Date.parse('2026-12-01T09:30:59Z')), '2026-12-01T09:30');
  assert.equal(msToIso(Date.parse('2026-12-01T09:30:59.900Z')), '2026-12-01T09:30:59Z');
  assert.equal(formatMoment('2026-12-01T09:30:59.999Z'), '2026-12-01 09:30:59 UTC');
  assert.equal(formatMoment(Date.parse('2026-12-01T09:30:00Z')), '2026-12-01 09:30 UTC');
  assert.equal(formatMoment('not a time'), 'not a time');
});

test('a window is checked before it is asked for, with the fix', () => {
  assert.deepEqual(checkWindow('7d', undefined, NOW), { ok: true });
  assert.deepEqual(checkWindow('2026-12-01T00:00:00Z', '2026-12-02T00:00:00Z', NOW), { ok: true });
  const backwards = checkWindow('2026-12-02T00:00:00Z', '2026-12-01T00:00:00Z', NOW);
  assert.equal(backwards.ok, false);
  assert.match(!backwards.ok ? backwards.message : '', /before its start: swap them/);
  const future = checkWindow('2026-12-07T00:00:00Z', undefined, NOW);
  assert.match(!future.ok ? future.message : '', /in the future/);
  const junk = checkWindow('last tuesday', undefined, NOW);
  assert.match(!junk.ok ? junk.message : '', /“last tuesday” is not a time/);
  const badEnd = checkWindow('7d', 'soon', NOW);
  assert.match(!badEnd.ok ? badEnd.message : '', /“soon” is not a time/);
});

test('a window in words', () => {
  assert.equal(windowLabel('7d'), 'the last 7 days');
  assert.equal(windowLabel('3h'), '3h ago to now');
  assert.equal(windowLabel('2026-12-01T00:00:00Z', '2026-12-02T12:00:00Z'), '2026-12-01 00:00 UTC to 2026-12-02 12:00 UTC');
  assert.equal(windowLabel('2026-12-01T00:00:00Z'), '2026-12-01 00:00 UTC to now');
});
