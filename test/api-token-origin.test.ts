/**
 * The token goes only to the API's origin: a download link, a pagination link or a redirect that names another
 * host (another port on loopback is another origin) never receives it.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ApiClient } from '../src/api/client.js';
import type { CreatePolicyInput } from '../src/api/types.js';
import { startApiFixture, testSeed, TOKEN, type ApiFixture } from './helpers/api-fixture.js';
import { bearer, startHostileProxy, startRecorder, type HostileServer } from './helpers/hostile-proxy.js';
import { captureLogs } from './helpers/logs.js';

function input(name: string): CreatePolicyInput {
  return { name, kind: 'native', description: null, enforcementLevel: 'advisory', query: null, policySetIds: [] };
}

type Json = Record<string, unknown>;

describe('the token never goes to another origin', { timeout: 30_000 }, () => {
  let f: ApiFixture;
  const servers: HostileServer[] = [];
  before(async () => {
    f = await startApiFixture(testSeed());
    for (const name of ['one', 'two', 'three']) await f.client.createPolicy('acme', input(`origin-${name}`));
  });
  after(async () => {
    for (const server of servers) await server.close();
    await f.close();
  });

  async function through(rules: Parameters<typeof startHostileProxy>[1]): Promise<ApiClient> {
    const proxy = await startHostileProxy(f.emulator.origin, rules);
    servers.push(proxy);
    return new ApiClient({ baseUrl: `${proxy.origin}/api/v2`, token: TOKEN, logger: captureLogs().logger, maxRetries: 1 });
  }

  async function recorder(): Promise<HostileServer> {
    const server = await startRecorder((seen) => (seen.url.includes('redirected') ? { status: 302, headers: { location: '/api/v2/blob' } } : { status: 200, body: 'main = rule { true }\n' }));
    servers.push(server);
    return server;
  }

  it('a download link naming another host gets no token', async () => {
    const other = await recorder();
    const client = await through({
      rewrite: (seen, document) => {
        const data = (document as { data?: Json }).data;
        if (seen.method === 'GET' && data !== undefined && !Array.isArray(data)) data['links'] = { download: `${other.origin}/api/v2/policies/x/download` };
        return document;
      },
    });
    try {
      const policy = (await f.client.listPolicies('acme')).find((p) => p.name === 'origin-one')!;
      const linked = await client.getPolicy(policy.id);
      assert.equal(linked.links.download, `${other.origin}/api/v2/policies/x/download`);
      // Both downloads reached the other host (a test that passed with nothing sent there would prove nothing), without the token.
      assert.equal(await client.downloadPolicy(linked), 'main = rule { true }\n');
      assert.equal((await client.downloadPolicyDigest(linked, 1024))?.text, 'main = rule { true }\n');
      assert.equal(other.seen.length, 2, 'each download went to the link');
      assert.deepEqual(other.seen.map(bearer).filter((t) => t !== null), [], 'no request to the other host carried the token');
      assert.ok(other.seen.every((s) => s.headers.authorization === undefined));
    } finally {
      await client.close();
    }
  });

  it('a redirect to another host gets no token, at whatever path', async () => {
    const other = await recorder();
    const client = await through({
      answer: (seen) => (seen.url.endsWith('/download') ? { status: 302, headers: { location: `${other.origin}/api/v2/redirected` } } : undefined),
    });
    try {
      const policy = (await client.listPolicies('acme')).find((p) => p.name === 'origin-two')!;
      await client.downloadPolicy(policy).catch(() => null);
      assert.ok(other.seen.length >= 1, 'the redirect was followed');
      assert.ok(other.seen.every((s) => s.headers.authorization === undefined), JSON.stringify(other.seen));
    } finally {
      await client.close();
    }
  });

  it('a pagination link to another host is not followed', async () => {
    const other = await recorder();
    const client = await through({
      rewrite: (seen, document) => {
        if (seen.method === 'GET' && /\/organizations\/acme\/policies/.test(seen.url)) {
          // A link the listing would otherwise follow: nothing in the page says it is the last.
          (document as Json)['links'] = { next: `${other.origin}/api/v2/organizations/acme/policies?page%5Bnumber%5D=2` };
          delete (document as Json)['meta'];
        }
        return document;
      },
    });
    try {
      await client.listPolicies('acme').catch(() => null);
      assert.deepEqual(other.seen.map((s) => s.url), [], 'the other host got no request');
    } finally {
      await client.close();
    }
  });

  it('a download link on the same host as the API but outside its base path gets no token either', async () => {
    const client = await through({
      answer: (seen) => (seen.url.startsWith('/elsewhere/') ? { status: 200, body: 'main = rule { true }\n' } : undefined),
      rewrite: (seen, document) => {
        const data = (document as { data?: Json }).data;
        if (seen.method === 'GET' && data !== undefined && !Array.isArray(data)) data['links'] = { download: '/elsewhere/policies/x/download' };
        return document;
      },
    });
    const proxy = servers[servers.length - 1]!;
    try {
      const policy = (await f.client.listPolicies('acme')).find((p) => p.name === 'origin-two')!;
      const linked = await client.getPolicy(policy.id);
      assert.equal(await client.downloadPolicy(linked), 'main = rule { true }\n');
      const outside = proxy.seen.filter((seen) => seen.url.startsWith('/elsewhere/'));
      assert.equal(outside.length, 1);
      assert.equal(bearer(outside[0]!), null, 'the same host outside /api/v2 got no token');
      assert.ok(proxy.seen.some((seen) => seen.url.startsWith('/api/v2/') && bearer(seen) === TOKEN), 'the API itself did');
    } finally {
      await client.close();
    }
  });
});
