import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { inspect } from 'node:util';
import { ApiClient } from '../src/api/client.js';
import type { CreatePolicyInput } from '../src/api/types.js';
import { MAX_CODE_BYTES } from '../src/model.js';
import { startApiFixture, testSeed, TOKEN, type ApiFixture } from './helpers/api-fixture.js';
import { captureLogs } from './helpers/logs.js';
import { startRecordingProxy, type LocationMode } from './helpers/api-proxy.js';
import { REPO_ROOT } from './helpers/repo-root.js';
import { VirtualClock } from './helpers/virtual-clock.js';

function input(name: string): CreatePolicyInput {
  return { name, kind: 'native', description: null, enforcementLevel: 'advisory', query: null, policySetIds: [] };
}

/** Everything an error could show: message, stack, own fields, and the whole cause chain. */
function everythingAbout(error: unknown): string {
  return `${String(error)}\n${error instanceof Error ? error.stack ?? '' : ''}\n${inspect(error, { depth: 10, showHidden: true })}\n${JSON.stringify(error)}`;
}

describe('the token stays secret', () => {
  let f: ApiFixture;
  // The emulator's rate-limit window and the client's back-off and 429 waits share one virtual clock: no test waits.
  const clock = new VirtualClock({ autoAdvance: true });
  before(async () => { f = await startApiFixture(testSeed(), {}, () => clock.now()); });
  after(async () => { await f.close(); });

  it('appears in no error and no log line, whatever fails', async () => {
    const { logger, lines } = captureLogs();
    const client = new ApiClient({ baseUrl: f.emulator.url, token: TOKEN, logger, maxRetries: 1, clock });
    const errors: unknown[] = [];
    const capture = (p: Promise<unknown>): Promise<void> => p.then(() => undefined, (e: unknown) => void errors.push(e));
    try {
      const policy = await client.createPolicy('acme', input('secret-check'));
      await capture(client.createPolicy('acme', input('secret-check')));
      await capture(client.getPolicy('pol-missing'));
      await capture(client.updatePolicy(policy, { enforcementLevel: 'mandatory' }));
      await capture(client.getAgent('agent-missing'));
      await f.emulator.addFaults({ kind: 'drop', method: 'GET', count: 0 });
      await capture(client.getPolicy(policy.id));
      await f.emulator.clearFaults();
      await f.emulator.addFaults({ kind: 'status', status: 503, method: 'GET', count: 0 });
      await capture(client.listPolicies('acme'));
      await f.emulator.clearFaults();
      await f.emulator.addFaults({ kind: 'lose-response', method: 'POST', count: 1 });
      await client.createPolicy('acme', input('secret-lost'), () => true);
      const big = join(f.tempDir, 'big.native');
      await writeFile(big, Buffer.alloc(MAX_CODE_BYTES + 1));
      await capture(client.uploadPolicy(policy.id, await readFile(big)));
      assert.equal(await client.downloadPolicy(policy), null, 'no code was uploaded');
      await capture(client.getAgentPool('apool-missing'));
      await f.emulator.setRateLimit(3);
      await f.emulator.addFaults({ kind: 'latency', 'latency-ms': 50, method: 'GET', count: 0 });
      await Promise.all(Array.from({ length: 10 }, () => client.getPolicy(policy.id)));
    } finally {
      await f.emulator.clearFaults();
      await f.emulator.setRateLimit(0);
      await client.close();
    }
    assert.equal(errors.length, 8);
    for (const error of errors) assert.ok(!everythingAbout(error).includes(TOKEN), everythingAbout(error));
    for (const line of lines) assert.ok(!line.includes(TOKEN), line);

    const records = lines.map((line) => JSON.parse(line) as { level: number; msg: string; method?: string; path?: string });
    assert.ok(records.every((r) => typeof r.msg === 'string' && !r.msg.includes('/')), 'static messages, details in fields');
    assert.ok(records.filter((r) => r.level === 20 && r.msg === 'api request').length >= 10, 'one debug line per request');
    const retried = records.filter((r) => r.level === 40 && r.msg === 'api request failed, retrying');
    assert.ok(retried.some((r) => r.method === 'GET' && r.path?.startsWith('/policies/pol-')), 'warns on retries, naming the request');
    assert.ok(records.some((r) => r.level === 40 && r.msg === 'api rate limited, waiting'), 'warns on 429');
    assert.ok(records.some((r) => r.level === 40 && r.msg === 'api create answer was lost but the resource exists; using it'));
  });

  it('a wrong token appears in no error and no log line either', async () => {
    const wrong = 'wrong-token-Kx81vQ';
    const { logger, lines } = captureLogs();
    const client = new ApiClient({ baseUrl: f.emulator.url, token: wrong, logger });
    try {
      const error = await client.listPolicies('acme').then(() => assert.fail('expected 401'), (e: unknown) => e);
      assert.ok(!everythingAbout(error).includes(wrong));
      assert.ok(lines.length > 0 && lines.every((line) => !line.includes(wrong)));
    } finally {
      await client.close();
    }
  });

  for (const mode of ['relative', 'other-host'] satisfies LocationMode[]) {
    it(`sends the token to the API but not to the download's temporary URL (${mode} Location); User-Agent to both`, async () => {
      const proxy = await startRecordingProxy(f.emulator.origin, mode);
      const { logger } = captureLogs();
      const client = new ApiClient({ baseUrl: `${proxy.origin}/api/v2`, token: TOKEN, logger });
      try {
        const policy = await client.createPolicy('acme', input(`download-${mode}`));
        const file = join(f.tempDir, `download-${mode}.native`);
        await writeFile(file, `# ${mode}\nmain = rule { true }\n`);
        await client.uploadPolicy(policy.id, await readFile(file));
        assert.equal(await client.downloadPolicy(await client.getPolicy(policy.id)), `# ${mode}\nmain = rule { true }\n`);
        const api = proxy.seen.filter((r) => r.url.startsWith('/api/v2/'));
        const blobs = proxy.seen.filter((r) => !r.url.startsWith('/api/v2/'));
        assert.ok(api.length >= 4 && api.every((r) => r.headers.authorization === `Bearer ${TOKEN}`));
        assert.ok(api.some((r) => r.url === `/api/v2/policies/${policy.id}/download`));
        assert.equal(blobs.length, 1, JSON.stringify(proxy.seen.map((r) => r.url)));
        assert.equal(blobs[0]?.headers.authorization, undefined);
        if (mode === 'other-host') assert.match(String(blobs[0]?.headers.host), /^localhost:/);
        await client.deletePolicy(policy.id);
        const { version } = JSON.parse(await readFile(join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string };
        const agent = `policy-pool-sync/${version}`;
        assert.deepEqual(proxy.seen.filter((r) => r.headers['user-agent'] !== agent).map((r) => [r.method, r.url, r.headers['user-agent']]), [],
          'every request names the client, the temporary URL included');
        const writes = proxy.seen.filter((r) => ['POST', 'PATCH', 'DELETE'].includes(r.method));
        assert.deepEqual(writes.map((r) => [r.method, r.headers['content-type']]),
          [['POST', 'application/vnd.api+json'], ['DELETE', 'application/vnd.api+json']], 'a DELETE carries the JSON:API type too');
      } finally {
        await client.close();
        await proxy.close();
      }
    });
  }
});
