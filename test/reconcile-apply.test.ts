import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { smallRepo } from './helpers/repos.js';
import { runCli } from './helpers/cli.js';
import { ORG } from './helpers/emulator.js';
import { useWorld } from './helpers/world.js';

describe('apply', () => {
  const fixture = useWorld();

  it('deletes again a policy whose upload failed, applies the rest, and exits 1 naming the failure', async () => {
    const world = fixture.world;
    const dir = await fixture.repo(smallRepo());
    await world.addFaults({ kind: 'status', status: 413, method: 'PUT', path: '/upload$', count: 1 });
    const run = await world.cli('--reconcile', dir);
    assert.equal(run.code, 1, run.stdout + run.stderr);
    const failed = /create policy "([\w-]+)" failed: .*413/.exec(run.stdout + run.stderr);
    assert.ok(failed, run.stdout + run.stderr);
    const names = (await world.organization()).policies.map((p) => p['name']);
    assert.ok(!names.includes(String(failed[1])), `${failed[1]} was left behind without its code`);
    assert.equal(names.length, 3, 'the other policies were applied');

    const repaired = await world.cli('--reconcile', dir);
    assert.equal(repaired.code, 0, repaired.stdout + repaired.stderr);
    assert.equal((await world.cli('--dry-run', dir, ['--detailed-exitcode'])).code, 0);
  });

  it('refuses more deletions than max-deletes before any write unless --force, and an empty source always', async () => {
    const many: Record<string, string> = {};
    for (let i = 0; i < 12; i += 1) many[`policies/bulk/bulk-${i}.native`] = `main = rule { ${i} >= 0 }\n`;
    const world = fixture.world;
    const dir = await fixture.repo(many);
    const one = await fixture.repo({ 'policies/bulk/bulk-0.native': 'main = rule { 0 >= 0 }\n' });
    const nothing = await fixture.repo({ 'README.md': 'nothing declared\n' });
    assert.equal((await world.cli('--reconcile', dir)).code, 0);

    await world.clearRequests();
    const refused = await world.cli('--reconcile', one, ['--prune', '--source', 'default']);
    assert.equal(refused.code, 1, refused.stdout + refused.stderr);
    assert.match(refused.stdout, /would delete \d+ resources, more than max-deletes \(10\)/);
    const empty = await world.cli('--reconcile', nothing, ['--prune', '--source', 'default', '--force']);
    assert.equal(empty.code, 1, empty.stdout + empty.stderr);
    assert.deepEqual(await world.writes(), [], 'refused before any write');

    const forced = await world.cli('--reconcile', one, ['--prune', '--source', 'default', '--force']);
    assert.equal(forced.code, 0, forced.stdout + forced.stderr);
    assert.deepEqual((await world.organization()).policies.map((p) => p['name']), ['bulk-0']);
  });

  it('keeps the token out of plans, logs and errors even at debug level and when requests fail', async () => {
    const world = fixture.world;
    const dir = await fixture.repo(smallRepo());
    await world.addFaults({ kind: 'status', status: 422, method: 'POST', count: 0 }, { kind: 'drop', method: 'GET', count: 2 });
    try {
      for (const output of ['text', 'json', 'markdown']) {
        const run = await world.cli('--dry-run', dir, ['--output', output], 'debug');
        assert.ok(run.stderr.length > 0, 'debug logs were written');
      }
      const failing = await world.cli('--reconcile', dir, [], 'debug');
      assert.equal(failing.code, 1, 'every create was refused');
      assert.match(failing.stdout, /POST \/organizations\/example-org\/policies failed: 422/);
      assert.ok(failing.stderr.includes('"level":20'), 'debug logs were written');
    } finally {
      await world.clearFaults();
    }
    const wrong = await runCli(['--dry-run', '--source-dir', dir, '--organization', ORG, '--api-url', world.url], {
      env: { API_TOKEN: 'wrong-Secret-token-42', LOG_LEVEL: 'debug' },
    });
    assert.equal(wrong.code, 1);
    assert.match(wrong.stdout + wrong.stderr, /401/);
    assert.ok(!(wrong.stdout + wrong.stderr).includes('wrong-Secret-token-42'), 'a rejected token is not echoed');
  });
});
