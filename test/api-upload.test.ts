import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, afterEach, before, describe, it } from 'node:test';
import type { Policy } from '../src/api/types.js';
import { MAX_CODE_BYTES } from '../src/model.js';
import { CodeTooLargeError } from '../src/errors.js';
import { rejectsWithStatus } from './helpers/api-assert.js';
import { startApiFixture, type ApiFixture } from './helpers/api-fixture.js';
import { startRecordingProxy } from './helpers/api-proxy.js';
import { ApiClient } from '../src/api/client.js';
import { captureLogs } from './helpers/logs.js';

/** A file of exactly `size` bytes of policy-like text. */
async function fileOfSize(path: string, size: number): Promise<string> {
  await writeFile(path, Buffer.alloc(size, 'main = rule { true } # padding padding padding padding padding\n'));
  return path;
}

describe('upload limits', () => {
  let f: ApiFixture;
  let policy: Policy;
  before(async () => {
    f = await startApiFixture();
    policy = await f.client.createPolicy('acme', {
      name: 'sized', kind: 'native', description: null, enforcementLevel: 'advisory', query: null, policySetIds: [],
    });
  });
  afterEach(async () => {
    await f.emulator.clearFaults();
    await f.emulator.clearRequests();
  });
  after(async () => { await f.close(); });

  it('refuses code over 10,485,760 bytes before sending anything, naming the policy and size', async () => {
    const file = await fileOfSize(join(f.tempDir, 'huge.native'), MAX_CODE_BYTES + 1);
    await f.emulator.clearRequests();
    const error = await f.client.uploadPolicy(policy.id, await readFile(file)).then(() => assert.fail('expected a refusal'), (e: unknown) => e);
    assert.ok(error instanceof CodeTooLargeError, String(error));
    assert.deepEqual([error.file, error.size, error.limit], [`the code of policy ${policy.id}`, MAX_CODE_BYTES + 1, MAX_CODE_BYTES]);
    assert.ok(error.message.includes(policy.id) && error.message.includes(String(MAX_CODE_BYTES + 1)), error.message);
    assert.deepEqual(await f.emulator.requests(), []);
  });

  it('sends exactly 10,485,760 bytes and gets them back', async () => {
    const file = await fileOfSize(join(f.tempDir, 'limit.native'), MAX_CODE_BYTES);
    await f.client.uploadPolicy(policy.id, await readFile(file));
    const code = await f.client.downloadPolicy(policy);
    assert.equal(Buffer.byteLength(code ?? ''), MAX_CODE_BYTES);
    assert.deepEqual((await f.emulator.requests())[0]?.status, 200);
  });

  it('a 413 from the server is an ApiError 413 naming the request, not retried', async () => {
    const file = join(f.tempDir, 'small.native');
    await writeFile(file, 'main = rule { false }\n');
    await f.emulator.addFaults({ kind: 'status', method: 'PUT', path: '/upload$', status: 413, count: 1 });
    await rejectsWithStatus(f.client.uploadPolicy(policy.id, await readFile(file)), 413, 'PUT', `/policies/${policy.id}/upload`);
    assert.deepEqual((await f.emulator.requests()).map((r) => [r.method, r.status]), [['PUT', 413]]);
  });

  it('the emulator answers 413 to a body over 10 MB and keeps the old code', async () => {
    const before = await f.client.downloadPolicy(policy);
    const response = await fetch(`${f.emulator.url}/policies/${policy.id}/upload`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${f.emulator.token}`, 'content-type': 'application/octet-stream' },
      body: Buffer.alloc(MAX_CODE_BYTES + 1, 0x61),
    });
    assert.equal(response.status, 413);
    await response.arrayBuffer();
    assert.equal(await f.client.downloadPolicy(policy), before);
  });
});

describe('the upload\'s headers', () => {
  it('the code upload PUT asks for application/json and sends octet-stream; every other request asks for JSON:API', async () => {
    const f = await startApiFixture();
    const proxy = await startRecordingProxy(f.emulator.origin, 'relative');
    const client = new ApiClient({ baseUrl: `${proxy.origin}/api/v2`, token: f.emulator.token, logger: captureLogs().logger });
    try {
      const policy = await client.createPolicy('acme', { name: 'accepting', kind: 'native', description: null, enforcementLevel: 'advisory', query: null, policySetIds: [] });
      assert.notEqual(await client.uploadPolicy(policy.id, Buffer.from('main = rule { true }\n')), null);
      const upload = proxy.seen.find((r) => r.method === 'PUT');
      assert.equal(upload?.headers.accept, 'application/json');
      assert.equal(upload?.headers['content-type'], 'application/octet-stream');
      assert.deepEqual([...new Set(proxy.seen.filter((r) => r.method !== 'PUT').map((r) => r.headers.accept))], ['application/vnd.api+json']);
    } finally {
      await client.close();
      await proxy.close();
      await f.close();
    }
  });
});
