/**
 * The native kind's word learned from policy sets (docs/api-behaviour.md, The hosted service's dialect): from the kind
 * a listed or read set carries, and from any 422 that names the kind field, by pointer or in its text, whatever the
 * wording; a 422 about anything else teaches nothing. And the ids a set answer gives go into URLs only in their shape.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ApiClient } from '../src/api/client.js';
import type { CreatePolicySetInput } from '../src/api/types.js';
import { ApiError } from '../src/errors.js';
import type { Seed } from '../src/emulator/index.js';
import { startApiFixture, TOKEN, type ApiFixture } from './helpers/api-fixture.js';
import { startHostileProxy, type HostileServer } from './helpers/hostile-proxy.js';
import { captureLogs } from './helpers/logs.js';

const ORG = 'acme';
const SET: CreatePolicySetInput = { name: 'learned', description: null, kind: 'native', global: false };

function hosted(): Seed {
  return { token: TOKEN, rateLimit: 0, nativeKind: 'sentinel', organizations: [{ name: ORG, policySets: [{ id: 'polset-seeded', name: 'seeded' }] }] };
}

describe('the word learned from a policy set\'s kind', () => {
  let f: ApiFixture;
  before(async () => (f = await startApiFixture(hosted())));
  after(() => f.close());

  it('a listed set of kind sentinel teaches the word: the next native create is sent as sentinel, once, never refused', async () => {
    assert.equal(f.client.nativeKind(), 'native');
    const [seeded] = await f.client.listPolicySets(ORG);
    assert.equal(seeded?.kind, 'native', 'read as the native kind');
    assert.equal(f.client.nativeKind(), 'sentinel');
    await f.emulator.clearRequests();
    const set = await f.client.createPolicySet(ORG, SET);
    const policy = await f.client.createPolicy(ORG, { name: 'p', kind: 'native', description: null, enforcementLevel: 'advisory', query: null, policySetIds: [] });
    assert.equal(set.kind, 'native');
    assert.equal(policy.kind, 'native');
    const writes = (await f.emulator.writes()).map((r) => `${r.method} ${r.path} ${r.status}`);
    assert.deepEqual(writes, [`POST /organizations/${ORG}/policy-sets 201`, `POST /organizations/${ORG}/policies 200`]);
    assert.ok(f.logLines.some((l) => l.includes('the word its policies or policy sets carry')));
  });
});

/** The hosted emulator behind a proxy that rewords each 422 refusing the kind as `reworded` does. */
async function reworded(f: ApiFixture, body: (document: unknown) => unknown): Promise<{ client: ApiClient; proxy: HostileServer }> {
  const proxy = await startHostileProxy(f.emulator.origin, {
    rewrite: (seen, document) => (JSON.stringify(document).includes('/data/attributes/kind') ? body(document) : document),
  });
  return { client: new ApiClient({ baseUrl: `${proxy.origin}/api/v2`, token: TOKEN, logger: captureLogs().logger, maxRetries: 0 }), proxy };
}

describe('the word learned from a 422 naming the kind field, whatever its wording', () => {
  let f: ApiFixture;
  before(async () => (f = await startApiFixture({ ...hosted(), organizations: [{ name: ORG }] })));
  after(() => f.close());

  const wordings: Array<[string, unknown]> = [
    ['the emulator\'s own: Kind is not included in the list', null],
    ['a pointer and an unheard-of detail', { errors: [{ status: 422, title: 'invalid attributes', detail: 'is not a supported value', source: { pointer: '/data/attributes/kind' } }] }],
    ['plain text naming kind, no pointer', { errors: ['Kind native is unknown here'] }],
    ['a list of the allowed kinds', { errors: [{ status: '422', title: 'invalid attribute', detail: 'kind must be one of sentinel, opa, tfpolicy' }] }],
  ];
  for (const [label, document] of wordings) {
    it(`${label}: the set is sent again as sentinel, and the word kept`, async () => {
      const { client, proxy } = await reworded(f, (original) => document ?? original);
      try {
        await f.emulator.clearRequests();
        const set = await client.createPolicySet(ORG, { ...SET, name: `set-${wordings.findIndex(([l]) => l === label)}` });
        assert.equal(set.kind, 'native');
        assert.equal(client.nativeKind(), 'sentinel');
        assert.deepEqual((await f.emulator.writes()).map((r) => r.status), [422, 201]);
        await f.client.deletePolicySet(set.id);
      } finally {
        await client.close();
        await proxy.close();
      }
    });
  }

  it('a 422 pointing at another field teaches nothing, even when its text says kind', async () => {
    const { client, proxy } = await reworded(f, () => ({ errors: [{ status: '422', title: 'invalid attribute', detail: 'Enforcement level is not valid for this kind', source: { pointer: '/data/attributes/enforcement-level' } }] }));
    try {
      await f.emulator.clearRequests();
      const error = await client.createPolicySet(ORG, { ...SET, name: 'other-field' }).catch((e: unknown) => e);
      assert.ok(error instanceof ApiError && /for this kind/.test(error.message));
      assert.equal((await f.emulator.writes()).length, 1);
      assert.equal(client.nativeKind(), 'native');
    } finally {
      await client.close();
      await proxy.close();
    }
  });

  it('a 422 about another field teaches nothing and is not sent again', async () => {
    const existing = await f.client.createPolicySet(ORG, { ...SET, kind: 'opa', name: 'taken' });
    const client = new ApiClient({ baseUrl: f.emulator.url, token: TOKEN, logger: captureLogs().logger, nativeKind: 'sentinel', maxRetries: 0 });
    try {
      await f.emulator.clearRequests();
      const error = await client.createPolicySet(ORG, { ...SET, name: 'taken' }).catch((e: unknown) => e);
      assert.ok(error instanceof ApiError && error.status === 422 && error.pointers[0] === '/data/attributes/name');
      assert.equal((await f.emulator.writes()).length, 1);
    } finally {
      await client.close();
      await f.client.deletePolicySet(existing.id);
    }
  });

  it('refused for its kind in both words: the first refusal is what the caller sees, and the word goes back', async () => {
    // In the emulator's place: every create is refused for its kind, each time in other words.
    let refusals = 0;
    const refusing = await startHostileProxy(f.emulator.origin, {
      answer: (seen) => (seen.method === 'POST'
        ? { status: 422, headers: { 'content-type': 'application/vnd.api+json' }, body: JSON.stringify({ errors: [{ status: '422', title: 'invalid attribute', detail: `refusal ${(refusals += 1)}`, source: { pointer: '/data/attributes/kind' } }] }) }
        : undefined),
    });
    const refused = new ApiClient({ baseUrl: `${refusing.origin}/api/v2`, token: TOKEN, logger: captureLogs().logger, maxRetries: 0 });
    try {
      const error = await refused.createPolicySet(ORG, SET).catch((e: unknown) => e);
      assert.ok(error instanceof ApiError && error.status === 422);
      assert.match(error.message, /refusal 1$/);
      assert.equal(refusing.seen.filter((s) => s.method === 'POST').length, 2, 'sent once again, not more');
      assert.equal(refused.nativeKind(), 'native', 'neither word was learned');
    } finally {
      await refused.close();
      await refusing.close();
    }
  });

  it('a given word is never changed: the refusal names the setting to change', async () => {
    const client = new ApiClient({ baseUrl: f.emulator.url, token: TOKEN, logger: captureLogs().logger, nativeKind: 'native', maxRetries: 0 });
    try {
      const error = await client.createPolicySet(ORG, SET).catch((e: unknown) => e);
      assert.ok(error instanceof ApiError);
      assert.match(error.message, /Kind is not included in the list; the API refused the kind "native" and most likely calls the native kind "sentinel": set api\.native-kind: sentinel/);
      assert.equal(client.nativeKind(), 'native');
    } finally {
      await client.close();
    }
  });
});

describe('ids from a set answer go into URLs only in their shape', () => {
  let f: ApiFixture;
  let proxy: HostileServer;
  before(async () => {
    f = await startApiFixture({ ...hosted(), nativeKind: 'native', organizations: [{ name: ORG, workspaces: [{ id: 'ws-one', name: 'one' }], policySets: ['polset-seeded'] }] });
    proxy = await startHostileProxy(f.emulator.origin, {
      rewrite: (seen, document) => {
        const data = (document as { data?: unknown }).data;
        const first = (Array.isArray(data) ? data[0] : data) as { id?: string; relationships?: Record<string, { data: unknown }> } | undefined;
        if (seen.url.includes('/policy-sets') && first?.id !== undefined) first.id = 'polset-x/../../organizations/acme';
        if (seen.url.includes('/workspaces') && first?.id !== undefined) first.id = `ws-${'a'.repeat(65)}`;
        return document;
      },
    });
  });
  after(async () => {
    await proxy.close();
    await f.close();
  });

  it('an answer whose set or workspace id has another shape is unusable, naming the request; an id argument of another shape is refused before any request', async () => {
    const client = new ApiClient({ baseUrl: `${proxy.origin}/api/v2`, token: TOKEN, logger: captureLogs().logger, maxRetries: 0 });
    try {
      const listed = await client.listPolicySets(ORG).catch((e: unknown) => e);
      assert.ok(listed instanceof ApiError);
      assert.match(listed.message, /GET \/organizations\/acme\/policy-sets.* failed: 200 but the response is unusable: "polset-x\/\.\.\/\.\.\/organizations\/acme" is not a policy-set id/);
      const workspaces = await client.listWorkspaces(ORG).catch((e: unknown) => e);
      assert.ok(workspaces instanceof ApiError && /is not a workspace id/.test(workspaces.message), String(workspaces));
      const before = proxy.seen.length;
      for (const call of [
        () => client.getPolicySet('../organizations/acme'),
        () => client.getPolicySetVersion('polset-notaversion'),
        () => client.deletePolicySetParameter('polset-seeded', 'var-a/b'),
        () => client.addToPolicySet('polset-a?x=1', 'workspaces', ['ws-a']),
      ]) {
        await assert.rejects(call(), /is not a (policy-set|policy-set-version|parameter) id/);
      }
      assert.equal(proxy.seen.length, before, 'no request was sent');
    } finally {
      await client.close();
    }
  });
});
