import assert from 'node:assert/strict';
import path from 'node:path';
import { after, test } from 'node:test';
import { applyPlan } from '../src/apply/apply.js';
import { silentLogger } from '../src/logger.js';
import { planChanges } from '../src/plan/plan.js';
import type { Plan } from '../src/plan/types.js';
import { emulateCase, organizationFor } from './helpers/plan-emulator.js';
import { expectedFor, loadPlanCases, summarizePlan } from './helpers/plan-fixtures.js';
import { useTempTrees } from './helpers/temp-tree.js';
import { World } from './helpers/world.js';

// Table tests over test/fixtures/plan-*/{declared,live,options,expected}.json (gitops-engine testdata style).
// UPDATE_GOLDEN=1 rewrites expected.json; review the diff before committing it.
const cases = await loadPlanCases();

// Each fixture's live state is also put into the real emulator (one organization per fixture), where its plan is applied for real.
const world = await World.start({ organizations: cases.map(organizationFor) });
after(() => world.close());
const codeDir = await useTempTrees('pps-plan-table-')();

/** What two plans of the same state share whatever ids the resources got: every change without its id (an agent without a name goes by its id). */
function withoutIds(plan: Plan): unknown {
  return plan.changes.map((change) => ({
    resource: change.resource,
    name: change.resource === 'agent' ? null : change.name,
    action: change.action,
    reason: change.reason,
    fields: change.fields,
  }));
}

test('there are plan fixtures', () => {
  assert.ok(cases.length >= 20, `only ${cases.length} fixtures found`);
});

for (const c of cases) {
  test(c.name, async (t) => {
    const plan = planChanges(c.declared, c.live, c.options);
    const actual = summarizePlan(plan);
    assert.deepEqual(actual, await expectedFor(c.dir, actual));

    await t.test('planning is pure: same inputs, same plan, inputs untouched', () => {
      const before = JSON.stringify([c.declared, c.live, c.options]);
      assert.deepEqual(summarizePlan(planChanges(c.declared, c.live, c.options)), actual);
      assert.equal(JSON.stringify([c.declared, c.live, c.options]), before);
    });

    if (plan.errors.length > 0) return; // a refused plan is never applied
    await t.test('applied for real to the emulator holding the same live state, the plan leaves nothing to do', async () => {
      const emulated = await emulateCase(c, world.url, world.token, path.join(codeDir, c.name));
      try {
        const options = c.options;
        const first = planChanges(emulated.declared, await emulated.readLive(), options);
        assert.deepEqual(withoutIds(first), withoutIds(plan), 'the emulator holds the live state of the fixture');
        // Applied as plain data: the apply needs nothing that the plan's JSON does not hold.
        const results = await applyPlan(JSON.parse(JSON.stringify(first)) as Plan, {
          api: emulated.api, organization: c.name, source: options.source, ownership: options.ownership, logger: silentLogger(),
        });
        assert.deepEqual(results.filter((r) => r.outcome === 'failed').map((r) => `${r.change.name}: ${r.message}`), []);
        const second = planChanges(emulated.declared, await emulated.readLive(), options);
        assert.deepEqual(second.changes.map((ch) => `${ch.action} ${ch.resource} ${ch.name}: ${ch.reason}`), []);
        assert.deepEqual(second.errors, []);
      } finally {
        await emulated.api.close();
      }
    });
  });
}
