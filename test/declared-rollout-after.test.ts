/** A rollout's `after:` as the declared repo is read: `0s` (at once) is a duration like any other; a fraction is not. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { readDeclared } from '../src/declared/index.js';
import { problemsOf } from './helpers/declared-problems.js';
import { useTempTrees } from './helpers/temp-tree.js';

const NATIVE = 'main = rule { true }\n';

describe('a rollout\'s after', () => {
  const dirOf = useTempTrees();

  it('0s is valid in a policy\'s settings and in a YAML set\'s, and means at once', async () => {
    const { policies } = await readDeclared(await dirOf({
      'policy-sets/prod.yaml': 'global: true\nenforcement-level: hard-mandatory\nrollout: { start: advisory, after: 0s }\n',
      'policies/member.native': NATIVE, 'policies/member.yaml': 'policy-sets: [prod]\n',
      'policies/own.native': NATIVE, 'policies/own.yaml': 'enforcement-level: soft-mandatory\nrollout: { start: advisory, after: 0m }\n',
    }));
    const byName = new Map(policies.map((p) => [p.name, p]));
    assert.deepEqual(byName.get('member')!.rollout, { start: 'advisory', cleanRuns: 1, failingWorkspaces: 0, afterMs: 0, after: '0s' });
    assert.equal(byName.get('own')!.rollout?.afterMs, 0);
  });

  it('a fraction or a number with a leading zero is not a duration, and says what one is', async () => {
    const problems = await problemsOf(readDeclared(await dirOf({
      'policies/a.native': NATIVE, 'policies/a.yaml': 'enforcement-level: soft-mandatory\nrollout: { start: advisory, after: 1.5h }\n',
      'policies/b.native': NATIVE, 'policies/b.yaml': 'enforcement-level: soft-mandatory\nrollout: { start: advisory, after: 07d }\n',
    })));
    assert.deepEqual(problems.map((p) => `${p.file}: ${p.message}`).sort(), [
      'policies/a.yaml: rollout.after "1.5h" is not a duration (a whole number followed by s, m, h or d, e.g. 0s, 15m, 1h, 7d)',
      'policies/b.yaml: rollout.after "07d" is not a duration (a whole number followed by s, m, h or d, e.g. 0s, 15m, 1h, 7d)',
    ]);
  });
});
