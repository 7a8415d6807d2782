import assert from 'node:assert/strict';
import { test } from 'node:test';
import { planChanges } from '../src/plan/plan.js';
import { expectedFor, loadPlanCases, summarizePlan } from './helpers/plan-fixtures.js';
import { liveAfterApply } from './helpers/plan-simulate.js';

// Table tests over test/fixtures/plan-*/{declared,live,options,expected}.json (gitops-engine testdata style).
// UPDATE_GOLDEN=1 rewrites expected.json; review the diff before committing it.
const cases = await loadPlanCases();

test('there are plan fixtures', () => {
  assert.ok(cases.length >= 20, `only ${cases.length} fixtures found`);
});

for (const c of cases) {
  test(c.name, async (t) => {
    const plan = planChanges(c.declared, c.live, c.options);
    const actual = summarizePlan(plan);
    assert.deepEqual(actual, await expectedFor(c.dir, actual));

    await t.test('a second plan after a successful apply is empty', () => {
      if (plan.errors.length > 0) return; // a refused plan writes nothing
      const after = liveAfterApply(c.live, plan, c.options);
      const second = planChanges(c.declared, after, c.options);
      assert.deepEqual(second.changes.map((ch) => `${ch.action} ${ch.resource} ${ch.name}: ${ch.reason}`), []);
      assert.deepEqual(second.errors, []);
    });

    await t.test('planning is pure: same inputs, same plan, inputs untouched', () => {
      const before = JSON.stringify([c.declared, c.live, c.options]);
      assert.deepEqual(summarizePlan(planChanges(c.declared, c.live, c.options)), actual);
      assert.equal(JSON.stringify([c.declared, c.live, c.options]), before);
    });
  });
}
