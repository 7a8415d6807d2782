import assert from 'node:assert/strict';
import { rename, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, it } from 'node:test';
import { ApiClient } from '../src/api/client.js';
import type { PolicyApi } from '../src/api/types.js';
import type { SourceConfig } from '../src/config/types.js';
import { codeDigest } from '../src/code-content.js';
import { silentLogger } from '../src/logger.js';
import { sourceErrors } from '../src/output/index.js';
import { runPass } from '../src/reconcile.js';
import { ORG } from './helpers/emulator.js';
import { useWorld } from './helpers/world.js';

const SOURCE: SourceConfig = {
  name: 'main', organization: ORG, path: null, git: null, schedule: '*/5 * * * *', prune: false, ownership: 'marker',
  maxDeletes: 10, allowEmpty: false, maxAgentPools: 1, passTimeoutSeconds: 600, adopt: false,
};

/** The client, with `beforeCreate` run before each policy create: the moment between plan and upload. */
function withHook(client: ApiClient, beforeCreate: () => Promise<void>): PolicyApi {
  const api = Object.create(client) as ApiClient;
  api.createPolicy = async (organization, input) => {
    await beforeCreate();
    return client.createPolicy(organization, input);
  };
  return api;
}

describe('only the bytes that were read and validated are uploaded', () => {
  const fixture = useWorld();

  it('code with a byte order mark and CRLF is uploaded as it is and then converges', async () => {
    const world = fixture.world;
    const code = '\uFEFF# bom\r\nmain = rule { true }\r\n';
    const dir = await fixture.repo({ 'policies/bom.native': code });
    const applied = await world.cli('--reconcile', dir);
    assert.equal(applied.code, 0, applied.stdout + applied.stderr);
    const live = (await world.organization()).policies.find((p) => p['name'] === 'bom');
    assert.equal(live?.['code'], code, 'the declared bytes, mark and line ends included');
    const again = await world.cli('--dry-run', dir, ['--detailed-exitcode']);
    assert.equal(again.code, 0, again.stdout);
  });

  it('code that starts with two byte order marks converges, with and without the code cache', async () => {
    const world = fixture.world;
    const code = '\uFEFF\uFEFF# two marks\nmain = rule { true }\n';
    const dir = await fixture.repo({ 'policies/two-marks.native': code });
    const applied = await world.cli('--reconcile', dir);
    assert.equal(applied.code, 0, applied.stdout + applied.stderr);
    assert.equal((await world.organization()).policies.find((p) => p['name'] === 'two-marks')?.['code'], code);
    for (const cache of [[], ['--no-cache']]) {
      const again = await world.cli('--dry-run', dir, ['--detailed-exitcode', ...cache]);
      assert.equal(again.code, 0, `${cache.join(' ')}: ${again.stdout}`);
    }
  });

  it('a code file swapped for a link leaving the repo, or rewritten, after the plan is not uploaded', async () => {
    const world = fixture.world;
    const outside = await fixture.repo({ 'passwd': 'root:x:0:0:root:/root:/bin/bash\n' });
    const dir = await fixture.repo({ 'policies/swapped.native': 'main = rule { true }\n', 'policies/rewritten.native': 'main = rule { 1 > 0 }\n' });
    const client = new ApiClient({ baseUrl: world.url, token: world.token, logger: silentLogger() });
    let swap: Promise<void> | null = null;
    const api = withHook(client, () => {
      swap ??= (async () => {
        // Swapped atomically: a link made aside, then renamed over the file.
        await symlink(path.join(outside, 'passwd'), path.join(dir, 'policies/link'));
        await rename(path.join(dir, 'policies/link'), path.join(dir, 'policies/swapped.native'));
        await writeFile(path.join(dir, 'policies/rewritten.native'), 'main = rule { 2 > 0 }\n');
      })();
      return swap;
    });
    try {
      const outcome = await runPass({ source: SOURCE, dir, revision: null, api, logger: silentLogger(), mode: 'apply' });
      assert.equal(outcome.ok, false);
      const errors = sourceErrors(outcome.sourcePlan).join('\n');
      assert.match(errors, /create policy "swapped" failed: policies\/swapped\.native changed since it was read and validated \(it resolves outside the source root/);
      assert.match(errors, /create policy "rewritten" failed: policies\/rewritten\.native changed since it was read and validated; nothing was uploaded/);
    } finally {
      await client.close();
    }
    const policies = (await world.organization()).policies;
    assert.ok(policies.every((p) => !String(p['code'] ?? '').includes('root:')), 'nothing outside the repo was uploaded');
    assert.deepEqual(policies.filter((p) => ['swapped', 'rewritten'].includes(p['name'] as string)), [], 'created policies without code were deleted again');
  });

  it('a plan holds code texts only where it shows a diff; creates carry the digest, size and lines', async () => {
    const world = fixture.world;
    const dir = await fixture.repo({ 'policies/drifted.native': 'main = rule { true }\n' });
    assert.equal((await world.cli('--reconcile', dir, ['--source', SOURCE.name])).code, 0);
    await writeFile(path.join(dir, 'policies/drifted.native'), 'main = rule { false }\n');
    await writeFile(path.join(dir, 'policies/fresh.native'), '# a\r\n# b\rmain = rule { true }');
    const client = new ApiClient({ baseUrl: world.url, token: world.token, logger: silentLogger() });
    try {
      const outcome = await runPass({ source: SOURCE, dir, revision: null, api: client, logger: silentLogger(), mode: 'plan' });
      const fields = new Map((outcome.sourcePlan.plan?.changes ?? []).map((c) => [c.name, c.fields['code']]));
      assert.deepEqual(fields.get('drifted'), { before: 'main = rule { true }\n', after: 'main = rule { false }\n' });
      assert.deepEqual(fields.get('fresh'), {
        before: null,
        after: { sha256: codeDigest('# a\n# b\nmain = rule { true }'), bytes: 29, lines: 3 },
      });
    } finally {
      await client.close();
    }
    const text = await world.cli('--dry-run', dir, ['--source', SOURCE.name]);
    assert.match(text.stdout, /code\s+= \(3 lines, 29 bytes\)/);
  });

  it('files that look declared but are not read, and empty code, are warnings in the plan', async () => {
    const world = fixture.world;
    const dir = await fixture.repo({ 'policies/empty-one.native': '', 'policies/SHOUT.NATIVE': 'main = rule { true }\n' });
    const run = await world.cli('--dry-run', dir, ['--output', 'json']);
    assert.equal(run.code, 0, run.stdout + run.stderr);
    const warnings = (JSON.parse(run.stdout) as { sources: Array<{ warnings: string[] }> }).sources[0]?.warnings ?? [];
    assert.ok(warnings.includes('policies/SHOUT.NATIVE: is not read: only lower-case extensions are; rename it to SHOUT.native to declare it'), JSON.stringify(warnings));
    assert.ok(warnings.includes('policies/empty-one.native: is empty; the policy is declared with no code'), JSON.stringify(warnings));
  });
});
