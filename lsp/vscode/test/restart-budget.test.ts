import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RestartBudget } from '../src/restart-budget';

describe('RestartBudget', () => {
  it('allows max restarts within the window, then none', () => {
    const budget = new RestartBudget(2, 180_000);
    assert.deepEqual([0, 1_000, 2_000, 3_000].map((t) => budget.allow(t)), [true, true, false, false]);
  });
  it('forgets crashes older than the window', () => {
    const budget = new RestartBudget(2, 180_000);
    assert.equal(budget.allow(0), true);
    assert.equal(budget.allow(10_000), true);
    assert.equal(budget.allow(185_000), true); // the crash at 0 is out of the window
    assert.equal(budget.allow(186_000), false);
  });
});
