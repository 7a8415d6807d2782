import assert from 'node:assert/strict';
import { test } from 'node:test';
import { planChanges } from '../src/plan/plan.js';
import { loadPlanCases } from './helpers/plan-fixtures.js';

// A change is plain data: what the apply needs of its declaration and its live resource, copied as values, never the
// objects the planner read. It survives a trip through JSON unchanged, holds no live code text, and its policy
// declarations carry a code reference: the digest compared, size, lines, and where the bytes are.
const cases = await loadPlanCases();

for (const c of cases) {
  test(`${c.name}: every change is plain data`, () => {
    for (const change of planChanges(c.declared, c.live, c.options).changes) {
      assert.deepEqual(JSON.parse(JSON.stringify(change)), change, `${change.action} ${change.resource} "${change.name}" survives JSON`);
      const live = change.live as object | null;
      assert.ok(live === null || !('code' in live), 'no live code text is carried');
      assert.ok(live === null || !('agents' in live), 'no live pool is carried whole');
      if (change.resource === 'agent') continue;
      for (const declared of [...c.declared.policies, ...c.declared.pools]) assert.notEqual(change.declared, declared, 'no declared object is carried');
      if (change.resource !== 'policy' || change.declared === null) continue;
      const policy = c.declared.policies.find((p) => p.name === change.name)!;
      const { code } = change.declared;
      assert.deepEqual(
        { sha256: code.sha256, bytes: code.bytes, lines: code.lines, file: code.file, source: code.source },
        { sha256: policy.codeDigest, bytes: policy.codeSource.size, lines: policy.codeLines, file: policy.file, source: policy.codeSource },
      );
    }
  });
}
