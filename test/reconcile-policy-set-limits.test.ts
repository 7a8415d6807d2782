/**
 * The edition's limits, each at its boundary: a plan that would leave one under the limit or exactly at it passes, one
 * over is refused before any write, naming the limit. Live versioned sets count toward theirs, members named by id
 * count as members named by name, and a plan that changes only which sets its policies are in is checked too.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ORG, WORKSPACES } from './helpers/emulator.js';
import { useWorld } from './helpers/world.js';

const CODE = 'main = rule { true }\n';

/** A versioned set folder. */
function folder(name: string): Record<string, string> {
  return {
    [`policy-sets/${name}/sentinel.hcl`]: 'policy "p" {\n  source = "./p.sentinel"\n}\n',
    [`policy-sets/${name}/p.sentinel`]: CODE,
  };
}

/** The plan's error lines about limits, as printed under "Errors:". */
const LIMIT_LINE = /^ {2}- limit: .*$/gm;

function limitLines(stdout: string): string[] | undefined {
  return stdout.match(LIMIT_LINE)?.map((line) => line.slice('  - '.length));
}

describe('policy-set-limit at its boundary, the live sets counted', () => {
  const fixture = useWorld({ organizations: [{ name: ORG, workspaces: WORKSPACES, policySets: [{ id: 'polset-Seeded00000001', name: 'seeded' }], entitlements: { policySetLimit: 3 } }] });

  for (const [created, total, refused] of [[1, 2, false], [2, 3, false], [3, 4, true]] as const) {
    it(`${created} new beside 1 live: ${total} sets ${refused ? 'pass' : 'do not pass'} a limit of 3`, async () => {
      const { world } = fixture;
      const tree = Object.fromEntries(Array.from({ length: created }, (_, i) => [`policy-sets/new-${i}.yaml`, '']));
      const dir = await fixture.repo(tree);
      await world.clearRequests();
      const run = await world.cli(refused ? '--reconcile' : '--dry-run', dir);
      assert.equal(run.code, refused ? 1 : 0, run.stdout + run.stderr);
      if (refused) {
        assert.deepEqual(limitLines(run.stdout), [
          'limit: the plan would leave 4 policy sets in the organization; its edition allows 3 (policy-set-limit). Nothing was written',
        ]);
        assert.deepEqual(await world.writes(), []);
      } else {
        assert.equal(run.stdout.match(LIMIT_LINE), null, run.stdout);
      }
    });
  }
});

describe('versioned-policy-set-limit at its boundary, the live versioned sets counted', () => {
  const fixture = useWorld({ organizations: [{ name: ORG, workspaces: WORKSPACES, entitlements: { versionedPolicySetLimit: 2 } }] });

  it('1 and then 2 pass a limit of 2; 3, one of them live, do not', async () => {
    const { world } = fixture;
    const one = await fixture.repo(folder('v1'));
    const under = await world.cli('--reconcile', one);
    assert.equal(under.code, 0, under.stdout + under.stderr);

    const at = await world.cli('--dry-run', await fixture.repo({ ...folder('v1'), ...folder('v2') }));
    assert.equal(at.code, 0, at.stdout + at.stderr);
    assert.equal(at.stdout.match(LIMIT_LINE), null, at.stdout);

    const over = await world.cli('--dry-run', await fixture.repo({ ...folder('v1'), ...folder('v2'), ...folder('v3') }));
    assert.equal(over.code, 1, over.stdout + over.stderr);
    assert.deepEqual(limitLines(over.stdout), [
      'limit: the plan would leave 3 versioned policy sets; the organization\'s edition allows 2 (versioned-policy-set-limit). Nothing was written',
    ]);
  });
});

describe('policy-limit at its boundary, members named by name and by id', () => {
  const SET_ID = 'polset-TeamSet000000001';
  const fixture = useWorld({ organizations: [{ name: ORG, workspaces: WORKSPACES, policySets: [{ id: SET_ID, name: 'team' }], entitlements: { policyLimit: 2 } }] });

  /** Policies a, b, c, …: the first `byName` list the set by name, the next `byId` by its id. */
  function members(byName: number, byId: number, others = 0): Record<string, string> {
    const tree: Record<string, string> = { 'policy-sets/team.yaml': '' };
    for (let i = 0; i < byName + byId + others; i += 1) {
      const name = String.fromCharCode(97 + i);
      tree[`policies/${name}.native`] = CODE;
      if (i < byName + byId) tree[`policies/${name}.yaml`] = `policy-sets: [${i < byName ? 'team' : SET_ID}]\n`;
    }
    return tree;
  }

  for (const [byName, byId, refused] of [[1, 0, false], [1, 1, false], [1, 2, true]] as const) {
    it(`${byName} named by name and ${byId} by id ${refused ? 'pass' : 'do not pass'} a limit of 2`, async () => {
      const { world } = fixture;
      const run = await world.cli('--dry-run', await fixture.repo(members(byName, byId)));
      assert.equal(run.code, refused ? 1 : 0, run.stdout + run.stderr);
      if (refused) {
        assert.deepEqual(limitLines(run.stdout), [
          'limit: policy set "team" would hold 3 policies; the organization\'s edition allows 2 in a set (policy-limit). Nothing was written',
        ]);
      } else {
        assert.equal(run.stdout.match(LIMIT_LINE), null, run.stdout);
      }
    });
  }

  it('a plan that only moves a policy into the set is checked: nothing created, the limit still refuses it', async () => {
    const { world } = fixture;
    const applied = await world.cli('--reconcile', await fixture.repo(members(2, 0, 1)));
    assert.equal(applied.code, 0, applied.stdout + applied.stderr);
    const moved = { ...members(2, 0, 1), 'policies/c.yaml': `policy-sets: [${SET_ID}]\n` };
    await world.clearRequests();
    const run = await world.cli('--reconcile', await fixture.repo(moved));
    assert.equal(run.code, 1, run.stdout + run.stderr);
    assert.match(run.stdout, /policy "c" will be updated in-place \(differs in policy-sets\)/);
    // The error blocks the plan: no `Plan:` line counts a change that will not be applied.
    assert.doesNotMatch(run.stdout, /^Plan: /m);
    assert.match(run.stdout, /^No plan to apply: the errors above block 1 planned change\.$/m);
    assert.deepEqual(limitLines(run.stdout), [
      'limit: policy set "team" would hold 3 policies; the organization\'s edition allows 2 in a set (policy-limit). Nothing was written',
    ]);
    assert.deepEqual(await world.writes(), []);
  });
});
