/**
 * The state dir is the operator's, never the repo's: a forged evidence cache and a forged code-cache entry (well-formed,
 * as a pull request would commit them, or as a cache copied into the state dir brings them) change nothing in the plan
 * or the apply, since only what this tool sealed with a key from the API token is read back; and a state dir whose
 * files the repo's git tracks is refused, naming it and the fix.
 */
import assert from 'node:assert/strict';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, it } from 'node:test';
import { codeDigest } from '../src/code-content.js';
import { organizationFileName, stateDirLayout } from '../src/state-dir.js';
import { stateSeal, withoutSeal } from '../src/state-seal.js';
import { runCli } from './helpers/cli.js';
import { ORG } from './helpers/emulator.js';
import { EVIDENCE_WORKSPACES, s3Repo } from './helpers/evidence.js';
import { gitRepo } from './helpers/git-repo.js';
import { tempTree } from './helpers/temp-tree.js';
import { useWorld } from './helpers/world.js';

const FAILING = /fails in 2 of 4 workspaces in scope \(app-prod, data-prod\)/;

describe('files forged into the state dir', () => {
  const fixture = useWorld({ organizations: [{ name: ORG, maxAgentPools: 1, workspaces: EVIDENCE_WORKSPACES }] });

  it('a forged evidence cache is a miss: the plan still names the failing workspaces', async (t) => {
    const { world } = fixture;
    const stateDir = await tempTree(t, {}, 'pps-forged-state-');
    const env = { STATE_DIR: stateDir };
    const advisory = await fixture.repo(s3Repo('advisory'));
    assert.equal((await world.cli('--reconcile', advisory, [], 'warn', env)).code, 0);
    for (const [workspace, outcome] of [['ws-AppProd000001', 'failed'], ['ws-DataProd00001', 'failed'], ['ws-WebDev0000001', 'passed']]) {
      assert.equal((await world.control('POST', '/runs', { workspace, outcomes: { 's3-encryption': outcome } })).status, 200);
    }
    const hard = await fixture.repo(s3Repo('hard-mandatory'));
    const first = await world.cli('--dry-run', hard, [], 'warn', env);
    assert.match(first.stdout, FAILING);

    // The file the tool wrote, its runs turned to passes: as committed by a repo (no seal), with the old seal line kept,
    // and sealed with a token the repo might guess.
    const file = path.join(stateDirLayout(stateDir).evidenceCache, organizationFileName(ORG));
    const written = await readFile(file, 'utf8');
    assert.match(written, /"failed"/);
    const passing = withoutSeal(written).replaceAll('"failed"', '"passed"');
    const forgeries = [
      passing,
      `${written.slice(0, written.indexOf('\n') + 1)}${passing}`,
      stateSeal('guessed-token', world.url).seal({ purpose: 'evidence cache', owner: ORG }, passing),
    ];
    for (const forged of forgeries) {
      await writeFile(file, forged);
      const plan = await world.cli('--dry-run', hard, [], 'warn', env);
      assert.equal(plan.code, 0, plan.stderr);
      assert.match(plan.stdout, FAILING, 'the forged passes are not believed');
      assert.doesNotMatch(plan.stdout, /fails in none/);
      assert.match(plan.stderr, /evidence cache file was not written by this tool/);
    }
  });

  it('a forged code-cache entry is a miss: the code change is planned and applied', async (t) => {
    const { world } = fixture;
    const stateDir = await tempTree(t, {}, 'pps-forged-code-');
    const env = { STATE_DIR: stateDir };
    const tree = { 'policies/forged-code.native': 'main = rule { true }\n', 'policies/forged-code.yaml': 'enforcement-level: advisory\n' };
    assert.equal((await world.cli('--reconcile', await fixture.repo(tree), [], 'warn', env)).code, 0);
    const live = (await world.policies()).find((p) => p.name === 'forged-code')!;
    const changed = { ...tree, 'policies/forged-code.native': 'main = rule { false }\n' };

    // What a repo would commit: the live policy's id and updated-at mapped to the digest of its own new code.
    const folder = stateDirLayout(stateDir).codeCache;
    await mkdir(folder, { recursive: true });
    const entry = JSON.stringify([live.id, live['updated-at'], codeDigest('main = rule { false }\n')]);
    await writeFile(path.join(folder, organizationFileName(ORG)), `{"format":"policy-pool-sync code cache","version":1,"organization":${JSON.stringify(ORG)},"entries":[\n${entry}\n],"sets":[]}\n`);

    const dir = await fixture.repo(changed);
    const plan = await world.cli('--dry-run', dir, [], 'warn', env);
    assert.equal(plan.code, 0, plan.stderr);
    assert.match(plan.stdout, /# policy "forged-code" will be updated in-place \(differs in code\)/);
    assert.match(plan.stdout, /-main = rule \{ true \}\n {10}\+main = rule \{ false \}\n/);
    assert.equal((await world.cli('--reconcile', dir, [], 'warn', env)).code, 0);
    assert.equal((await world.policies()).find((p) => p.name === 'forged-code')!.code, 'main = rule { false }\n', 'the apply uploads the code');
  });
});

describe('a state dir the repo carries', () => {
  const fixture = useWorld();

  it('is refused when git tracks files in it, naming it and the fix; an untracked one inside the clone is used', async (t) => {
    const { world } = fixture;
    const repo = await gitRepo(t);
    const forged = `{"format":"policy-pool-sync evidence cache","version":1,"organization":${JSON.stringify(ORG)},"runs":[]}\n`;
    await repo.commit({
      'policies/tracked.native': 'main = rule { true }\n',
      [`.policy-pool-sync/evidence-cache/${organizationFileName(ORG)}`]: forged,
    });
    const env = { API_TOKEN: world.token, LOG_LEVEL: 'warn' };
    const run = (stateDir: string) =>
      runCli(['--dry-run', '--source-dir', '.', '--organization', ORG, '--api-url', world.url, '--state-dir', stateDir], { cwd: repo.dir, env });

    const refused = await run('.policy-pool-sync');
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /the state dir \S*\/\.policy-pool-sync is inside the repo's git work tree .*git tracks 1 file\(s\) in it \(\.policy-pool-sync\/evidence-cache\/example-org-[0-9a-f]{12}\.json\)/);
    assert.match(refused.stderr, /--state-dir \(STATE_DIR, state-dir\) at a folder outside the checkout, or remove those files from the repo \(git rm -r --cached \.policy-pool-sync\)/);
    assert.deepEqual(await world.writes(), [], 'nothing is sent');

    const untracked = await run('.cache-here');
    assert.equal(untracked.code, 0, untracked.stderr);
    assert.match(untracked.stdout, /\+ resource "policy" "tracked"/);
  });
});
