/**
 * The client's policy-set side against the emulator on a loopback port, in both dialects: sets and their
 * relationships, versions uploaded and polled to ready or errored, parameters, workspaces and projects over every
 * page, the entitlement set; the token never sent to an upload link; ids checked before they go into a URL; the native
 * kind's word learned from a set's kind and from a 422 naming the kind field, whatever its wording.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ApiClient } from '../src/api/client.js';
import { ApiError } from '../src/errors.js';
import { createPolicySetBody } from '../src/api/policy-set-bodies.js';
import type { Seed } from '../src/emulator/index.js';
import type { PolicySetVersion } from '../src/api/types.js';
import { startApiFixture, TOKEN, type ApiFixture } from './helpers/api-fixture.js';
import { bearer, startHostileProxy, type HostileServer } from './helpers/hostile-proxy.js';
import { captureLogs } from './helpers/logs.js';
import { tarGz } from './helpers/tar-gz.js';

const ORG = 'acme';

function seed(nativeKind: 'native' | 'sentinel'): Seed {
  return {
    token: TOKEN,
    rateLimit: 0,
    nativeKind,
    organizations: [{
      name: ORG,
      workspaces: [
        { id: 'ws-front', name: 'app-frontend', project: 'prj-web' },
        { id: 'ws-back', name: 'app-backend', project: 'prj-web' },
        ...Array.from({ length: 230 }, (_, i) => ({ id: `ws-bulk${i}`, name: `bulk-${String(i).padStart(3, '0')}` })),
      ],
      projects: [{ id: 'prj-web', name: 'Web' }, { id: 'prj-ops', name: 'Ops' }],
      entitlements: { policySetLimit: 40, policyLimit: null },
    }],
  };
}

/** The emulator's clock: ingestion ends 500 ms after an upload on it. */
let clock = Date.parse('2026-06-01T12:00:00Z');

/** Reads the version until it leaves pending and ingressing, the emulator's clock moving 250 ms between reads. */
async function poll(f: ApiFixture, id: string): Promise<{ seen: string[]; version: PolicySetVersion }> {
  const seen: string[] = [];
  for (;;) {
    const version = await f.client.getPolicySetVersion(id);
    seen.push(version.status);
    if (version.status !== 'pending' && version.status !== 'ingressing') return { seen, version };
    assert.ok(seen.length < 10, `still ${version.status} after ${seen.length} reads`);
    clock += 250;
  }
}

for (const dialect of ['native', 'sentinel'] as const) {
  describe(`the client's policy sets against the ${dialect} dialect`, () => {
    let f: ApiFixture;
    before(async () => (f = await startApiFixture(seed(dialect), { nativeKind: dialect }, () => clock)));
    after(() => f.close());

    it('creates, reads, lists with every filter and include over all pages, updates and deletes; the kind reads as native', async () => {
      const created = await f.client.createPolicySet(ORG, { name: 'baseline', description: 'the base', kind: 'native', global: false, workspaceIds: ['ws-front'], projectIds: ['prj-ops'] });
      assert.equal(created.kind, 'native');
      assert.deepEqual([created.workspaceIds, created.projectIds, created.versioned, created.global], [['ws-front'], ['prj-ops'], false, false]);
      const opa = await f.client.createPolicySet(ORG, { name: 'rego', description: null, kind: 'opa', global: true, workspaceExclusionIds: ['ws-back'] });
      assert.deepEqual([opa.kind, opa.global, opa.workspaceExclusionIds], ['opa', true, ['ws-back']]);
      for (let i = 0; i < 25; i += 1) await f.client.createPolicySet(ORG, { name: `filler-${i}`, description: null, kind: 'native', global: false });
      await f.emulator.clearRequests();
      const all = await f.client.listPolicySets(ORG);
      assert.equal(all.length, 27, 'every page');
      const natives = await f.client.listPolicySets(ORG, { kind: 'native', search: 'base', versioned: false, include: ['projects', 'current_version'] });
      assert.deepEqual(natives.map((s) => s.name), ['baseline']);
      const paths = (await f.emulator.requests()).map((r) => r.path);
      assert.ok(paths.some((p) => p.includes(`filter%5Bkind%5D=${dialect}`) && p.includes('filter%5Bversioned%5D=false') && p.includes('include=projects%2Ccurrent_version')), paths.join('\n'));
      assert.deepEqual((await f.client.listPolicySets(ORG, { kind: 'opa' })).map((s) => s.name), ['rego']);
      const updated = await f.client.updatePolicySet(created.id, { description: 'changed', name: 'baseline-2' });
      assert.deepEqual([updated.name, updated.description], ['baseline-2', 'changed']);
      assert.equal((await f.client.getPolicySet(created.id)).name, 'baseline-2');
      for (const set of await f.client.listPolicySets(ORG, { search: 'filler' })) await f.client.deletePolicySet(set.id);
      await f.client.deletePolicySet(opa.id);
      await f.client.deletePolicySet(opa.id); // a 404: gone already, counted as deleted
      const refused = await f.client.createPolicySet(ORG, { name: 'baseline-2', description: null, kind: 'native', global: false }).catch((e: unknown) => e);
      assert.ok(refused instanceof ApiError && refused.status === 422 && /Name has already been taken/.test(refused.message));
      assert.deepEqual(refused.pointers, ['/data/attributes/name']);
      await f.client.deletePolicySet(created.id);
    });

    it('adds and removes every relationship (nothing sent for none); global with workspaces is the service\'s 422', async () => {
      const set = await f.client.createPolicySet(ORG, { name: 'scoped', description: null, kind: 'native', global: false });
      const policy = await f.client.createPolicy(ORG, { name: 'member', kind: 'native', description: null, enforcementLevel: 'advisory', query: null, policySetIds: [] });
      await f.client.addToPolicySet(set.id, 'policies', [policy.id]);
      await f.client.addToPolicySet(set.id, 'workspaces', ['ws-front', 'ws-back']);
      await f.client.addToPolicySet(set.id, 'projects', ['prj-web']);
      await f.client.addToPolicySet(set.id, 'workspace-exclusions', ['ws-bulk1']);
      await f.client.addToPolicySet(set.id, 'project-exclusions', ['prj-ops']);
      await f.emulator.clearRequests();
      await f.client.addToPolicySet(set.id, 'workspaces', []);
      await f.client.removeFromPolicySet(set.id, 'projects', []);
      assert.deepEqual(await f.emulator.requests(), [], 'an empty list sends nothing');
      let read = await f.client.getPolicySet(set.id);
      assert.deepEqual([read.policyIds, read.workspaceIds, read.projectIds, read.workspaceExclusionIds, read.projectExclusionIds], [[policy.id], ['ws-front', 'ws-back'], ['prj-web'], ['ws-bulk1'], ['prj-ops']]);
      await f.client.removeFromPolicySet(set.id, 'workspaces', ['ws-back']);
      await f.client.removeFromPolicySet(set.id, 'policies', [policy.id]);
      read = await f.client.getPolicySet(set.id);
      assert.deepEqual([read.policyIds, read.workspaceIds], [[], ['ws-front']]);
      const global = await f.client.updatePolicySet(set.id, { global: true }).catch((e: unknown) => e);
      assert.ok(global instanceof ApiError && global.status === 422, String(global));
      const unknown = await f.client.addToPolicySet(set.id, 'workspaces', ['ws-nosuch']).catch((e: unknown) => e);
      assert.ok(unknown instanceof ApiError && unknown.status === 422);
      await f.client.removeFromPolicySet('polset-gone', 'workspaces', ['ws-front']); // 404: the set holds nothing
      await f.client.deletePolicySet(set.id);
      await f.client.deletePolicy(policy.id);
    });

    it('sends policy-update-patterns only when given and reads them back; overridable reads as the service holds it, per kind', async () => {
      const opa = await f.client.createPolicySet(ORG, { name: 'patterns', description: null, kind: 'opa', global: true, policyUpdatePatterns: ['*.rego', 'policies/**'] });
      assert.deepEqual([opa.policyUpdatePatterns, opa.overridable], [['*.rego', 'policies/**'], false]);
      const updated = await f.client.updatePolicySet(opa.id, { overridable: true, policyUpdatePatterns: [] });
      assert.deepEqual([updated.policyUpdatePatterns, updated.overridable], [[], true]);
      const native = await f.client.createPolicySet(ORG, { name: 'plain-native', description: null, kind: 'native', global: true });
      assert.deepEqual([native.policyUpdatePatterns, native.overridable], [[], null]);
      const sent = createPolicySetBody({ name: 'plain-native', description: null, kind: 'native', global: true }, dialect) as { data: { attributes: Record<string, unknown> } };
      assert.deepEqual(Object.keys(sent.data.attributes).sort(), ['description', 'global', 'kind', 'name'], 'only what is given is sent');
      for (const set of [opa, native]) await f.client.deletePolicySet(set.id);
    });

    it('uploads a version\'s archive without the token and polls it through ingressing to ready; current-version and newest-version follow', async () => {
      const set = await f.client.createPolicySet(ORG, { name: 'library', description: null, kind: 'native', global: false });
      const version = await f.client.createPolicySetVersion(set.id);
      assert.equal(version.status, 'pending');
      assert.ok(version.uploadUrl?.startsWith(f.emulator.origin));
      // The emulator refuses an upload that carries a token (400): this one goes through.
      await f.client.uploadPolicySetVersion(version, tarGz({ 'sentinel.hcl': 'policy "p" {\n  source = "./p.sentinel"\n}\n', 'p.sentinel': 'main = true\n' }));
      const { seen, version: ready } = await poll(f, version.id);
      assert.deepEqual(seen, ['ingressing', 'ingressing', 'ready']);
      assert.deepEqual(Object.keys(ready.statusTimestamps).sort(), ['ingressing-at', 'pending-at', 'ready-at']);
      assert.deepEqual([ready.errorMessage, ready.source, ready.policySetId], [null, 'tfe-api', set.id]);
      const broken = await f.client.createPolicySetVersion(set.id);
      await f.client.uploadPolicySetVersion(broken, tarGz({ 'sentinel.hcl': 'policy "p" {\n  source = "./gone.sentinel"\n}\n' }));
      const { version: errored } = await poll(f, broken.id);
      assert.equal(errored.status, 'errored');
      assert.equal(errored.errorMessage, 'sentinel.hcl: policy "p" source "./gone.sentinel" is not in the policy set version\'s archive');
      const read = await f.client.getPolicySet(set.id, { include: ['current_version', 'newest_version'] });
      assert.deepEqual([read.currentVersionId, read.newestVersionId, read.versioned, read.policyCount], [version.id, broken.id, true, 1]);
      assert.deepEqual([read.currentVersion?.status, read.newestVersion?.status], ['ready', 'errored']);
      const listed = (await f.client.listPolicySets(ORG, { versioned: true, include: ['newest_version'] })).find((s) => s.id === set.id);
      assert.equal(listed?.newestVersion?.errorMessage, errored.errorMessage);
      const spent = await f.client.uploadPolicySetVersion(version, Buffer.from('again')).catch((e: unknown) => e);
      const key = version.uploadUrl!.split('/').pop()!;
      assert.ok(spent instanceof ApiError && spent.status === 404, String(spent));
      assert.match(spent.message, new RegExp(`^PUT /policy-set-versions/${version.id} \\(its upload link\\) failed: 404`));
      assert.ok(!spent.message.includes(key) && !f.logLines.join('').includes(key), 'the link is a credential: never in a message or a log line');
      const noLink = await f.client.uploadPolicySetVersion({ ...version, uploadUrl: null }, Buffer.from('x')).catch((e: unknown) => e);
      assert.match(String(noLink), /has no upload link/);
    });

    it('an upload answered 503 is sent again, its bytes whole; a fault for every request leaves upload links alone', async () => {
      const set = await f.client.createPolicySet(ORG, { name: 'flaky', description: null, kind: 'native', global: false });
      const version = await f.client.createPolicySetVersion(set.id);
      await f.emulator.addFaults({ kind: 'status', method: 'PUT', path: '^/_archivist/', status: 503, count: 1 }, { kind: 'status', method: 'PUT', status: 500, count: 1 });
      await f.emulator.clearRequests();
      await f.client.uploadPolicySetVersion(version, tarGz({ 'sentinel.hcl': 'policy "p" {\n  source = "./p.sentinel"\n}\n', 'p.sentinel': 'main = true\n' }));
      assert.deepEqual((await f.emulator.requests()).map((r) => [r.method, r.status]), [['PUT', 503], ['PUT', 200]]);
      assert.equal((await poll(f, version.id)).version.status, 'ready');
      await f.emulator.clearFaults();
    });

    it('parameters: a sensitive value is sent once and never read back', async () => {
      const set = await f.client.createPolicySet(ORG, { name: 'params', description: null, kind: 'native', global: false });
      const plain = await f.client.createPolicySetParameter(set.id, { key: 'region', value: 'eu-west-1', sensitive: false });
      const secret = await f.client.createPolicySetParameter(set.id, { key: 'api_key', value: 'Sup3r-S3cret-Param', sensitive: true });
      assert.deepEqual([plain.value, secret.value, secret.sensitive], ['eu-west-1', '', true]);
      const changed = await f.client.updatePolicySetParameter(set.id, secret.id, { value: 'An0ther-S3cret' });
      assert.equal(changed.value, '');
      const listed = await f.client.listPolicySetParameters(set.id);
      assert.deepEqual(listed.map((p) => [p.key, p.value, p.sensitive, p.category]), [['region', 'eu-west-1', false, 'policy-set'], ['api_key', '', true, 'policy-set']]);
      assert.ok(!f.logLines.join('').includes('S3cret'), 'no log line holds a sensitive value');
      await f.client.deletePolicySetParameter(set.id, secret.id);
      await f.client.deletePolicySetParameter(set.id, secret.id);
      assert.deepEqual((await f.client.listPolicySetParameters(set.id)).map((p) => p.key), ['region']);
    });

    it('workspaces by name and wildcard over every page (100 at a time), projects by names in any case, and the entitlement set', async () => {
      await f.emulator.clearRequests();
      const all = await f.client.listWorkspaces(ORG);
      assert.equal(all.length, 232);
      const pages = (await f.emulator.requests()).map((r) => r.path);
      assert.equal(pages.length, 3);
      assert.ok(pages.every((p) => p.includes('page%5Bsize%5D=100')), pages.join('\n'));
      assert.deepEqual((await f.client.listWorkspaces(ORG, { wildcardName: '*-frontend' })).map((w) => [w.id, w.name, w.projectId]), [['ws-front', 'app-frontend', 'prj-web']]);
      assert.deepEqual((await f.client.listWorkspaces(ORG, { search: 'APP-' })).map((w) => w.name).sort(), ['app-backend', 'app-frontend']);
      assert.equal((await f.client.listWorkspaces(ORG, { wildcardName: 'bulk-1*' })).length, 100, 'bulk-100 to bulk-199: one full page');
      assert.deepEqual((await f.client.listProjects(ORG, { names: ['web', 'OPS'] })).map((p) => p.id), ['prj-web', 'prj-ops']);
      assert.deepEqual(await f.client.listProjects(ORG, { names: ['nope'] }), []);
      const limits = await f.client.getEntitlements(ORG);
      assert.deepEqual([limits.policySetLimit, limits.policyLimit, limits.versionedPolicySetLimit], [40, null, null]);
    });
  });
}

describe('the token never goes to an upload link, even one under the API\'s own base path', () => {
  let f: ApiFixture;
  let proxy: HostileServer;
  before(async () => {
    f = await startApiFixture(seed('native'));
    proxy = await startHostileProxy(f.emulator.origin, {
      answer: (seen) => (seen.method === 'PUT' && seen.url.startsWith('/api/v2/uploads/') ? { status: 200 } : undefined),
      rewrite: (seen, document) => {
        const data = (document as { data?: { type?: string; links?: Record<string, string> } }).data;
        if (data?.type === 'policy-set-versions' && data.links !== undefined) data.links.upload = `/api/v2/uploads/${data.links.upload?.split('/').pop() ?? ''}`;
        return document;
      },
    });
  });
  after(async () => {
    await proxy.close();
    await f.close();
  });

  it('the archive goes as application/octet-stream, its bytes as they are, with no Authorization', async () => {
    const client = new ApiClient({ baseUrl: `${proxy.origin}/api/v2`, token: TOKEN, logger: captureLogs().logger, maxRetries: 0 });
    try {
      const set = await client.createPolicySet(ORG, { name: 'via-proxy', description: null, kind: 'native', global: false });
      const version = await client.createPolicySetVersion(set.id);
      assert.match(version.uploadUrl ?? '', /^\/api\/v2\/uploads\//, 'a relative link under the API');
      await client.uploadPolicySetVersion(version, Buffer.from([0x1f, 0x8b, 0, 1, 2]));
      const upload = proxy.seen.find((s) => s.method === 'PUT');
      assert.ok(upload !== undefined);
      assert.equal(upload.headers.authorization, undefined);
      assert.equal(upload.headers['content-type'], 'application/octet-stream');
      assert.ok(proxy.seen.filter((s) => s.method !== 'PUT').every((s) => bearer(s) === TOKEN), 'the API calls carry it');
    } finally {
      await client.close();
    }
  });
});

describe('an upload answered by a redirect (an object store\'s 307) names the version, never the link', () => {
  let f: ApiFixture;
  let proxy: HostileServer;
  const SECRET_PATH = '/object/SignedPathPart-9f8e7d';
  before(async () => {
    f = await startApiFixture(seed('native'));
    proxy = await startHostileProxy(f.emulator.origin, {
      answer: (seen) => (seen.method === 'PUT' && seen.url.startsWith('/uploads/')
        ? { status: 307, headers: { location: `https://objects.example${SECRET_PATH}-elsewhere?X-Amz-Signature=abc` } }
        : undefined),
      rewrite: (_seen, document) => {
        const data = (document as { data?: { type?: string; links?: Record<string, string> } }).data;
        if (data?.type === 'policy-set-versions' && data.links !== undefined) data.links.upload = `/uploads${SECRET_PATH}`;
        return document;
      },
    });
  });
  after(async () => {
    await proxy.close();
    await f.close();
  });

  it('the error and every log line name the version and the status; neither the link nor where it pointed', async () => {
    const logs = captureLogs();
    const client = new ApiClient({ baseUrl: `${proxy.origin}/api/v2`, token: TOKEN, logger: logs.logger, maxRetries: 0 });
    try {
      const set = await client.createPolicySet(ORG, { name: 'redirected', description: null, kind: 'native', global: false });
      const version = await client.createPolicySetVersion(set.id);
      const error = await client.uploadPolicySetVersion(version, Buffer.from([0x1f, 0x8b, 0, 1, 2])).catch((e: unknown) => e);
      assert.ok(error instanceof ApiError, String(error));
      assert.equal(error.message, `PUT /policy-set-versions/${version.id} (its upload link) was answered 307, a redirect to another URL (not shown: the link is a credential); a write is never repeated to another URL`);
      const said = `${error.message}\n${logs.text()}`;
      assert.ok(!said.includes('SignedPathPart') && !said.includes('objects.example') && !said.includes('Signature'), said);
    } finally {
      await client.close();
    }
  });
});
