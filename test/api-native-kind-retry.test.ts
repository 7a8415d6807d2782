/**
 * A create is sent again in the other word for the native kind only when the service refused the word it was sent
 * in: a 422 whose list of allowed kinds leaves that word out. Any other refusal is the answer, sent once.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ApiClient } from '../src/api/client.js';
import type { CreatePolicyInput } from '../src/api/types.js';
import { ApiError } from '../src/errors.js';
import { startApiFixture, testSeed, TOKEN, type ApiFixture } from './helpers/api-fixture.js';
import { startHostileProxy, type Answer, type HostileServer } from './helpers/hostile-proxy.js';
import { captureLogs } from './helpers/logs.js';

const input = (name: string): CreatePolicyInput => ({ name, kind: 'native', description: null, enforcementLevel: 'advisory', query: null, policySetIds: [] });
const refusal = (status: number, detail: string): Answer => ({
  status,
  headers: { 'content-type': 'application/vnd.api+json' },
  body: JSON.stringify({ errors: [{ status: String(status), title: 'invalid attribute', detail }] }),
});

describe('the native word is sent again only when it was the word refused', { timeout: 60_000 }, () => {
  let f: ApiFixture;
  const servers: HostileServer[] = [];
  before(async () => {
    f = await startApiFixture(testSeed());
  });
  after(async () => {
    for (const server of servers) await server.close();
    await f.close();
  });

  /** A client whose creates get `answer`; resolves with what the create came to and the creates sent. */
  async function create(answer: Answer): Promise<{ outcome: unknown; posts: number }> {
    const proxy = await startHostileProxy(f.emulator.origin, { answer: (seen) => (seen.method === 'POST' && seen.url.endsWith('/policies') ? answer : undefined) });
    servers.push(proxy);
    const client = new ApiClient({ baseUrl: `${proxy.origin}/api/v2`, token: TOKEN, logger: captureLogs().logger, maxRetries: 0, retryBudgetMs: 0 });
    try {
      const outcome = await client.createPolicy('fresh', input('word')).then((p) => p, (e: unknown) => e);
      return { outcome, posts: proxy.seen.filter((s) => s.method === 'POST').length };
    } finally {
      await client.close();
    }
  }

  it('a refusal naming the allowed kinds with another status than 422 is sent once', async () => {
    const { outcome, posts } = await create(refusal(400, 'kind must be one of sentinel, opa'));
    assert.ok(outcome instanceof ApiError && outcome.status === 400, String(outcome));
    assert.equal(posts, 1);
  });

  it('a 422 whose allowed kinds include the word sent is about something else: sent once', async () => {
    const { outcome, posts } = await create(refusal(422, 'kind must be one of native, sentinel, opa'));
    assert.ok(outcome instanceof ApiError && outcome.status === 422, String(outcome));
    assert.equal(posts, 1);
  });

  it('a 422 that leaves the word sent out is sent again once, in the word it names', async () => {
    const { outcome, posts } = await create(refusal(422, 'kind must be one of sentinel, opa'));
    assert.ok(outcome instanceof ApiError && outcome.status === 422, 'the proxy refuses the second one too');
    assert.equal(posts, 2);
  });
});
