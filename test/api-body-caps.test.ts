import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import { MAX_DOWNLOAD_BYTES, MAX_JSON_BODY_BYTES } from '../src/api/body-cap.js';
import { fetchDownload } from '../src/api/download.js';
import type { HttpRequest, HttpResponse } from '../src/api/http-types.js';
import type { Transport } from '../src/api/transport.js';
import { ApiError } from '../src/errors.js';
import { startApiFixture, type ApiFixture } from './helpers/api-fixture.js';

async function apiErrorOf(promise: Promise<unknown>): Promise<ApiError> {
  const error = await promise.then(() => assert.fail('expected an ApiError'), (e: unknown) => e);
  assert.ok(error instanceof ApiError, `ApiError, got ${String(error)}`);
  return error;
}

describe('response bodies are capped', () => {
  let f: ApiFixture;
  before(async () => { f = await startApiFixture(); });
  afterEach(async () => {
    await f.emulator.clearFaults();
    await f.emulator.clearRequests();
  });
  after(async () => { await f.close(); });

  it('a list page past the JSON cap is an error naming the request, read no further and never retried', async () => {
    await f.emulator.addFaults({ kind: 'huge-body', method: 'GET', path: '^/organizations/acme/policies$', bytes: 200_000_000, count: 0 });
    const before = process.memoryUsage().rss;
    const error = await apiErrorOf(f.client.listPolicies('acme'));
    assert.match(error.message, new RegExp(`^GET /organizations/acme/policies\\?page\\[number\\]=1&page\\[size\\]=100 failed: the response body is larger than ${MAX_JSON_BODY_BYTES} bytes`));
    assert.equal((await f.emulator.requests()).length, 1, 'not retried');
    assert.ok(process.memoryUsage().rss - before < 100_000_000, 'the body was not held');
  });

  it('a download past the code limit plus margin is an error naming the request, never retried', async () => {
    const policy = await f.client.createPolicy('acme', {
      name: 'huge-code', kind: 'native', description: null, enforcementLevel: 'advisory', query: null, policySetIds: [],
    });
    await f.emulator.addFaults({ kind: 'huge-body', method: 'GET', path: `^/policies/${policy.id}/download$`, bytes: 400_000_000, count: 0 });
    const streamed = await apiErrorOf(f.client.downloadPolicyDigest(policy, 1024));
    assert.match(streamed.message, new RegExp(`^GET /policies/${policy.id}/download failed: the response body is larger than ${MAX_DOWNLOAD_BYTES} bytes`));
    const whole = await apiErrorOf(f.client.downloadPolicy(policy));
    assert.match(whole.message, /larger than/);
    assert.equal((await f.emulator.requests()).filter((r) => r.method === 'GET').length, 2, 'one request each, not retried');
  });

  it('a download just under the limit plus margin is read', async () => {
    const policy = await f.client.createPolicy('acme', {
      name: 'big-code', kind: 'native', description: null, enforcementLevel: 'advisory', query: null, policySetIds: [],
    });
    await f.emulator.addFaults({ kind: 'huge-body', method: 'GET', path: `^/policies/${policy.id}/download$`, bytes: MAX_DOWNLOAD_BYTES });
    const text = await f.client.downloadPolicy(policy);
    assert.equal(text?.length, MAX_DOWNLOAD_BYTES);
  });
});

describe('download redirects', () => {
  it('a redirect from https to http is refused, naming the request', async () => {
    const sent: string[] = [];
    const transport = {
      send(req: HttpRequest): Promise<HttpResponse> {
        sent.push(req.url);
        const path = new URL(req.url).pathname;
        return Promise.resolve({ status: 302, headers: { location: 'http://blobs.example/code?sig=x' }, text: '', request: { method: 'GET', path } });
      },
    } as unknown as Transport;
    const error = await apiErrorOf(fetchDownload(transport, undefined, 'https://api.example/api/v2/policies/pol-1/download'));
    assert.match(error.message, /^GET \/api\/v2\/policies\/pol-1\/download failed: redirects from https to http \(blobs\.example\); refused/);
    assert.deepEqual(sent, ['https://api.example/api/v2/policies/pol-1/download'], 'the http URL was never requested');
  });
});
