/**
 * A versioned set's policy whose config block gives no `enforcement_level` is advisory, Sentinel's default: as the
 * repo is read, and in the plan's evidence, which holds only the policies a new content makes blocking.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { readDeclared } from '../src/declared/index.js';
import type { LivePolicySet, LiveState } from '../src/model.js';
import { planChanges } from '../src/plan/plan.js';
import { tightenings } from '../src/plan/tightening.js';
import { defaultOptions } from './helpers/plan-fixtures.js';
import { useTempTrees } from './helpers/temp-tree.js';

const CONFIG = [
  'policy "scan" {\n  source = "./scan.sentinel"\n  enforcement_level = "hard-mandatory"\n}\n',
  'policy "tags" {\n  source = "./tags.sentinel"\n}\n',
].join('\n');

describe('a versioned set\'s policy without enforcement_level', () => {
  const dirOf = useTempTrees();

  it('is advisory as the repo is read, and a new content does not make it blocking in the plan\'s evidence', async () => {
    const dir = await dirOf({ 'policy-sets/fsbp/sentinel.hcl': CONFIG, 'policy-sets/fsbp/scan.sentinel': 'main = rule { true }\n', 'policy-sets/fsbp/tags.sentinel': 'main = rule { true }\n' });
    const declared = await readDeclared(dir);
    const set = declared.policySets?.find((s) => s.name === 'fsbp');
    assert.deepEqual(set?.content?.levels, [{ name: 'scan', level: 'hard-mandatory' }, { name: 'tags', level: 'advisory' }]);
    const liveSet: LivePolicySet = {
      id: 'polset-fsbp', name: 'fsbp', kind: 'native', global: true, overridable: null, agentEnabled: false, policyToolVersion: null, versioned: true, vcsBacked: false,
      parameters: null, workspaceIds: [], projectIds: [], workspaceExclusionIds: [], projectExclusionIds: [], currentVersionId: 'polsetver-1', newestVersion: null,
      description: `<!-- managed-by: policy-pool-sync source=main content=sha256:${'a'.repeat(64)} version=polsetver-1 -->`,
    };
    const live: LiveState = { policies: [], pools: [], policySets: [liveSet] };
    const plan = planChanges({ ...declared, policySets: [{ ...set!, global: true }] }, live, defaultOptions());
    assert.deepEqual(tightenings(plan.changes, { ...declared, policySets: [{ ...set!, global: true }] }, live).map((t) => t.policies.map((p) => `${p.name} ${p.level}`)), [['scan hard-mandatory']]);
  });
});
