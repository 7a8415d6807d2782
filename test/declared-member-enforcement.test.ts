/**
 * A YAML set's enforcement-level and rollout for its members, as the declared repo is read: a member that declares
 * neither takes them, a policy's own declaration wins, and a conflict or a level the set's kind does not take is a
 * problem naming its files before anything else happens.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { readDeclared } from '../src/declared/index.js';
import { problemsOf } from './helpers/declared-problems.js';
import { useTempTrees } from './helpers/temp-tree.js';

const NATIVE = 'main = rule { true }\n';
const ROLLOUT = 'rollout: { start: advisory, clean-runs: 5, after: 7d }\n';

describe('a YAML set gives its members their level and rollout', () => {
  const dirOf = useTempTrees();

  it('a member declaring neither takes both; one declaring its own level keeps it; a policy outside the set is untouched', async () => {
    const { policies } = await readDeclared(await dirOf({
      'policy-sets/prod.yaml': `global: true\nenforcement-level: hard-mandatory\n${ROLLOUT}`,
      'policies/member.native': NATIVE, 'policies/member.yaml': 'policy-sets: [prod]\ndescription: d\n',
      'policies/own.native': NATIVE, 'policies/own.yaml': 'policy-sets: [prod]\nenforcement-level: soft-mandatory\n',
      'policies/elsewhere.native': NATIVE,
    }));
    const byName = new Map(policies.map((p) => [p.name, p]));
    assert.deepEqual([byName.get('member')!.enforcementLevel, byName.get('member')!.rollout, byName.get('member')!.levelFrom],
      ['hard-mandatory', { start: 'advisory', cleanRuns: 5, failingWorkspaces: 0, afterMs: 7 * 86_400_000, after: '7d' }, 'policy-sets/prod.yaml']);
    assert.deepEqual([byName.get('own')!.enforcementLevel, byName.get('own')!.rollout ?? null, byName.get('own')!.levelFrom], ['soft-mandatory', null, 'policies/own.yaml']);
    assert.deepEqual([byName.get('elsewhere')!.enforcementLevel, byName.get('elsewhere')!.rollout ?? null], ['advisory', null]);
  });

  it('two sets giving the same are no conflict; two giving different ones are a problem naming the policy and both set files', async () => {
    const same = await readDeclared(await dirOf({
      'policy-sets/a.yaml': 'enforcement-level: soft-mandatory\n', 'policy-sets/b.yaml': 'enforcement-level: soft-mandatory\n',
      'policies/p.native': NATIVE, 'policies/p.yaml': 'policy-sets: [a, b]\n',
    }));
    assert.equal(same.policies[0]!.enforcementLevel, 'soft-mandatory');
    const problems = await problemsOf(readDeclared(await dirOf({
      'policy-sets/a.yaml': `enforcement-level: hard-mandatory\n${ROLLOUT}`, 'policy-sets/b.yaml': 'enforcement-level: hard-mandatory\n',
      'policies/p.native': NATIVE, 'policies/p.yaml': 'policy-sets: [a, b]\n',
      'policies/q.native': NATIVE, 'policies/q.yaml': 'policy-sets: [a, b]\nenforcement-level: advisory\n',
    })));
    assert.deepEqual(problems, [{
      file: 'policies/p.yaml',
      message: 'policy "p" is in policy sets that give their members different enforcement: policy-sets/a.yaml (hard-mandatory, rollout from advisory: 5 clean runs, 0 failing workspaces, after 7d) and policy-sets/b.yaml (hard-mandatory); declare enforcement-level (and rollout) in its own settings',
    }]);
  });

  it('two sets whose rollouts differ only in after conflict; 7d and 168h are the same', async () => {
    const rollout = (after: string) => `enforcement-level: hard-mandatory\nrollout: { start: advisory, clean-runs: 5, after: ${after} }\n`;
    const problems = await problemsOf(readDeclared(await dirOf({
      'policy-sets/a.yaml': rollout('7d'), 'policy-sets/b.yaml': rollout('14d'),
      'policies/p.native': NATIVE, 'policies/p.yaml': 'policy-sets: [a, b]\n',
    })));
    assert.deepEqual(problems.map((p) => p.message), [
      'policy "p" is in policy sets that give their members different enforcement: policy-sets/a.yaml (hard-mandatory, rollout from advisory: 5 clean runs, 0 failing workspaces, after 7d) and policy-sets/b.yaml (hard-mandatory, rollout from advisory: 5 clean runs, 0 failing workspaces, after 14d); declare enforcement-level (and rollout) in its own settings',
    ]);
    const same = await readDeclared(await dirOf({
      'policy-sets/a.yaml': rollout('7d'), 'policy-sets/b.yaml': rollout('168h'),
      'policies/p.native': NATIVE, 'policies/p.yaml': 'policy-sets: [a, b]\n',
    }));
    assert.equal(same.policies[0]!.rollout?.afterMs, 7 * 86_400_000);
  });

  it('the level must suit the set\'s kind and the member\'s; the rollout is checked as a policy\'s; a versioned set declares neither', async () => {
    const problems = await problemsOf(readDeclared(await dirOf({
      'policy-sets/rego.yaml': 'kind: opa\nenforcement-level: hard-mandatory\n',
      'policy-sets/loose.yaml': 'enforcement-level: soft-mandatory\nrollout: { start: soft-mandatory }\n',
      'policy-sets/strict.yaml': 'enforcement-level: hard-mandatory\n',
      'policies/r.rego': 'package r\n', 'policies/r.yaml': 'query: data.r.deny\npolicy-sets: [strict]\n',
      'policy-sets/lib/sentinel.hcl': 'policy "p" {\n  source = "./p.sentinel"\n}\n', 'policy-sets/lib/p.sentinel': NATIVE,
      'policy-sets/lib/policy-set.yaml': 'global: true\nenforcement-level: hard-mandatory\n',
    })));
    assert.deepEqual(problems.map((p) => `${p.file}:${p.line ?? ''}: ${p.message}`).sort(), [
      'policies/r.yaml:: policy "r" takes its level from policy-sets/strict.yaml: enforcement-level "hard-mandatory" is not valid for an opa policy (mandatory, advisory)',
      'policy-sets/lib/policy-set.yaml:2: enforcement-level is not allowed here: a versioned set\'s levels are its policies\' enforcement_level in sentinel.hcl',
      'policy-sets/loose.yaml:2: rollout start "soft-mandatory" must be less strict than the enforcement-level "soft-mandatory" it rolls out to',
      'policy-sets/rego.yaml:2: enforcement-level "hard-mandatory" is not valid for an opa policy set (mandatory, advisory)',
    ]);
  });
});
