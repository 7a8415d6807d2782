/**
 * The emulator's policy sets, as the hosted service answers them (docs/api-behaviour.md, Policy sets), raw over HTTP
 * in both dialects: create, list filters and include, read, update, delete, the rules that refuse (422 in the service's
 * shape), relationships (204, 404, 422), workspaces, projects and the entitlement set from the seed.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Seed } from '../src/emulator/index.js';
import { TestEmulator } from './helpers/emulator.js';

const ORG = 'acme';

function seed(nativeKind: 'native' | 'sentinel'): Partial<Seed> {
  return {
    nativeKind,
    organizations: [{
      name: ORG,
      workspaces: [
        { id: 'ws-app1', name: 'app-frontend', project: 'prj-web' },
        { id: 'ws-app2', name: 'app-backend', project: 'prj-web' },
        { id: 'ws-ops1', name: 'ops', project: 'prj-ops' },
        ...Array.from({ length: 130 }, (_, i) => ({ id: `ws-bulk${String(i).padStart(3, '0')}`, name: `bulk-${String(i).padStart(3, '0')}` })),
      ],
      projects: [{ id: 'prj-web', name: 'Web' }, { id: 'prj-ops', name: 'Platform Ops' }],
      policySets: ['polset-seeded', { id: 'polset-opa', name: 'rego-set', kind: 'opa' }],
    }],
  };
}

function setBody(name: string, attributes: Record<string, unknown> = {}, relationships?: Record<string, unknown>): unknown {
  return { data: { type: 'policy-sets', attributes: { name, ...attributes }, ...(relationships === undefined ? {} : { relationships }) } };
}

const refs = (type: string, ...ids: string[]) => ({ data: ids.map((id) => ({ type, id })) });

for (const dialect of ['native', 'sentinel'] as const) {
  describe(`policy sets in the ${dialect} dialect`, () => {
    let t: TestEmulator;
    before(async () => (t = await TestEmulator.start(seed(dialect))));
    after(() => t.close());

    it('creates (201) with the kind in the dialect\'s word, reads, updates and deletes; a name taken is the service\'s 422', async () => {
      const created = await t.call('POST', `/organizations/${ORG}/policy-sets`, { body: setBody('baseline', { description: 'd', kind: dialect }, { workspaces: refs('workspaces', 'ws-app1') }) });
      assert.equal(created.status, 201, created.text);
      const set = created.json.data;
      assert.match(set.id, /^polset-[A-Za-z0-9]{16}$/);
      assert.equal(set.attributes.kind, dialect);
      assert.equal(set.attributes.versioned, false);
      assert.equal(set.attributes['workspace-count'], 1);
      assert.deepEqual(set.relationships.workspaces.data, [{ id: 'ws-app1', type: 'workspaces' }]);
      assert.deepEqual(set.relationships['current-version'].data, null);
      const defaulted = await t.call('POST', `/organizations/${ORG}/policy-sets`, { body: setBody('no-kind') });
      assert.equal(defaulted.json.data.attributes.kind, dialect, 'the kind defaults to the native word');
      const taken = await t.call('POST', `/organizations/${ORG}/policy-sets`, { body: setBody('baseline') });
      assert.equal(taken.status, 422);
      assert.deepEqual(taken.json, { errors: [{ status: '422', title: 'invalid attribute', detail: 'Name has already been taken', source: { pointer: '/data/attributes/name' } }] });
      const patched = await t.call('PATCH', `/policy-sets/${set.id}`, { body: { data: { type: 'policy-sets', attributes: { description: 'new', 'agent-enabled': true, overridable: true, 'policy-tool-version': '0.40.0' } } } });
      assert.equal(patched.status, 200, patched.text);
      assert.equal(patched.json.data.attributes.description, 'new');
      assert.equal(patched.json.data.attributes['policy-tool-version'], '0.40.0');
      const agentOff = await t.call('PATCH', `/policy-sets/${set.id}`, { body: { data: { type: 'policy-sets', attributes: { 'agent-enabled': false } } } });
      assert.deepEqual([agentOff.json.data.attributes['policy-tool-version'], agentOff.json.data.attributes.overridable], [null, null], 'agent-enabled false clears both');
      const kindChange = await t.call('PATCH', `/policy-sets/${set.id}`, { body: { data: { type: 'policy-sets', attributes: { kind: 'opa' } } } });
      assert.equal(kindChange.status, 422);
      assert.equal((await t.call('GET', `/policy-sets/${set.id}`)).json.data.attributes.name, 'baseline');
      assert.equal((await t.call('DELETE', `/policy-sets/${set.id}`)).status, 204);
      assert.equal((await t.call('DELETE', `/policy-sets/${defaulted.json.data.id}`)).status, 204);
      assert.equal((await t.call('GET', `/policy-sets/${set.id}`)).status, 404);
      assert.equal((await t.call('DELETE', `/policy-sets/${set.id}`)).status, 404);
    });

    it('overridable as go-tfe\'s tests show: a native set holds it only while agent-enabled, an opa set always, false when never given', async () => {
      const create = async (name: string, attributes: Record<string, unknown>) => {
        const created = await t.call('POST', `/organizations/${ORG}/policy-sets`, { body: setBody(name, attributes) });
        assert.equal(created.status, 201, created.text);
        return created.json.data as { id: string; attributes: Record<string, unknown> };
      };
      const nativeOnly = await create('native-overridable', { kind: dialect, overridable: true });
      assert.equal(nativeOnly.attributes.overridable, null, 'a native set that is not agent-enabled keeps no overridable');
      const opaAll = await create('opa-overridable', { kind: 'opa', overridable: true, global: true });
      assert.equal(opaAll.attributes.overridable, true, 'TestPolicySetsCreate "with all attributes provided - OPA"');
      const opaMissing = await create('opa-missing', { kind: 'opa', global: true });
      assert.equal(opaMissing.attributes.overridable, false, 'TestPolicySetsCreate "with missing overridable attribute"');
      const patched = await t.call('PATCH', `/policy-sets/${opaMissing.id}`, { body: { data: { type: 'policy-sets', attributes: { overridable: true, 'agent-enabled': false } } } });
      assert.equal(patched.json.data.attributes.overridable, true, 'TestPolicySetsUpdate "with valid attributes-OPA": agent-enabled does not clear it');
      const seededOpa = await t.call('GET', '/policy-sets/polset-opa');
      assert.equal(seededOpa.json.data.attributes.overridable, false);
      for (const set of [nativeOnly, opaAll, opaMissing]) assert.equal((await t.call('DELETE', `/policy-sets/${set.id}`)).status, 204);
    });

    it('policy-update-patterns are stored and answered, on create and on update; anything but a list of strings is a 422', async () => {
      const created = await t.call('POST', `/organizations/${ORG}/policy-sets`, { body: setBody('patterns', { kind: 'opa', 'policy-update-patterns': ['*.rego', 'policies/**'] }) });
      assert.deepEqual(created.json.data.attributes['policy-update-patterns'], ['*.rego', 'policies/**'], 'TestPolicySetsCreate "OPA policy set with policy update patterns"');
      const id = created.json.data.id as string;
      const patched = await t.call('PATCH', `/policy-sets/${id}`, { body: { data: { type: 'policy-sets', attributes: { 'policy-update-patterns': ['*.hcl'] } } } });
      assert.deepEqual(patched.json.data.attributes['policy-update-patterns'], ['*.hcl']);
      assert.deepEqual((await t.call('GET', `/policy-sets/${id}`)).json.data.attributes['policy-update-patterns'], ['*.hcl']);
      const wrong = await t.call('PATCH', `/policy-sets/${id}`, { body: { data: { type: 'policy-sets', attributes: { 'policy-update-patterns': '*.rego' } } } });
      assert.equal(wrong.status, 422);
      assert.equal(wrong.json.errors[0].source.pointer, '/data/attributes/policy-update-patterns');
      assert.equal((await t.call('DELETE', `/policy-sets/${id}`)).status, 204);
    });

    it('refuses the other dialect\'s word for kind, naming the kind field', async () => {
      const other = dialect === 'native' ? 'sentinel' : 'native';
      const refused = await t.call('POST', `/organizations/${ORG}/policy-sets`, { body: setBody('wrong-word', { kind: other }) });
      assert.equal(refused.status, 422);
      const detail = dialect === 'sentinel' ? 'Kind is not included in the list' : 'kind must be one of native, opa';
      assert.deepEqual(refused.json.errors, [{ status: '422', title: 'invalid attribute', detail, source: { pointer: '/data/attributes/kind' } }]);
      const beta = await t.call('POST', `/organizations/${ORG}/policy-sets`, { body: setBody('beta', { kind: 'tfpolicy' }) });
      assert.equal(beta.status, dialect === 'sentinel' ? 201 : 422, 'tfpolicy is the hosted service\'s beta kind');
      if (beta.status === 201) await t.call('DELETE', `/policy-sets/${beta.json.data.id}`);
    });

    it('vcs-repo excludes policies, and global excludes workspaces and projects (422); exclusions stay allowed on a global set', async () => {
      const policy = await t.call('POST', `/organizations/${ORG}/policies`, { body: { data: { type: 'policies', attributes: { name: 'member', kind: dialect, 'enforcement-level': 'advisory' } } } });
      const pol = policy.json.data.id as string;
      const both = await t.call('POST', `/organizations/${ORG}/policy-sets`, { body: setBody('vcs', { 'vcs-repo': { identifier: 'org/repo', 'oauth-token-id': 'ot-1' } }, { policies: refs('policies', pol) }) });
      assert.equal(both.status, 422);
      assert.equal(both.json.errors[0].source.pointer, '/data/relationships/policies');
      const globalScoped = await t.call('POST', `/organizations/${ORG}/policy-sets`, { body: setBody('global-scoped', { global: true }, { projects: refs('projects', 'prj-web') }) });
      assert.equal(globalScoped.status, 422);
      assert.equal(globalScoped.json.errors[0].source.pointer, '/data/attributes/global');
      const global = await t.call('POST', `/organizations/${ORG}/policy-sets`, { body: setBody('everywhere', { global: true }, { 'workspace-exclusions': refs('workspaces', 'ws-ops1') }) });
      assert.equal(global.status, 201, global.text);
      const id = global.json.data.id as string;
      assert.equal((await t.call('POST', `/policy-sets/${id}/relationships/workspaces`, { body: refs('workspaces', 'ws-app1') })).status, 422, 'no workspaces on a global set');
      const scoped = await t.call('POST', `/organizations/${ORG}/policy-sets`, { body: setBody('scoped') }, );
      const scopedId = scoped.json.data.id as string;
      await t.call('POST', `/policy-sets/${scopedId}/relationships/projects`, { body: refs('projects', 'prj-ops') });
      const toGlobal = await t.call('PATCH', `/policy-sets/${scopedId}`, { body: { data: { type: 'policy-sets', attributes: { global: true } } } });
      assert.equal(toGlobal.status, 422, 'a scoped set cannot become global');
      for (const set of [id, scopedId]) await t.call('DELETE', `/policy-sets/${set}`);
      await t.call('DELETE', `/policies/${pol}`);
    });

    it('relationships: POST and DELETE answer 204 reading only type and id; an unknown set is 404; an unknown member 422 changing nothing', async () => {
      const created = await t.call('POST', `/organizations/${ORG}/policy-sets`, { body: setBody('members') });
      const id = created.json.data.id as string;
      const withExtras = { data: [{ type: 'workspaces', id: 'ws-app1', attributes: { name: 'ignored' }, links: { self: '/x' } }] };
      for (const [name, type, member] of [['workspaces', 'workspaces', 'ws-app1'], ['projects', 'projects', 'prj-web'], ['workspace-exclusions', 'workspaces', 'ws-ops1'], ['project-exclusions', 'projects', 'prj-ops']] as const) {
        const body = name === 'workspaces' ? withExtras : refs(type, member);
        assert.equal((await t.call('POST', `/policy-sets/${id}/relationships/${name}`, { body })).status, 204, name);
        assert.equal((await t.call('POST', `/policy-sets/${id}/relationships/${name}`, { body })).status, 204, `${name}: adding again changes nothing`);
        const unknown = await t.call('POST', `/policy-sets/${id}/relationships/${name}`, { body: refs(type, member, `${type === 'workspaces' ? 'ws' : 'prj'}-nosuch`) });
        assert.equal(unknown.status, 422, `${name}: unknown member`);
        assert.equal(unknown.json.errors[0].source.pointer, '/data/1');
        assert.equal((await t.call('POST', `/policy-sets/polset-nosuchset/relationships/${name}`, { body: refs(type, member) })).status, 404);
        assert.equal((await t.call('DELETE', `/policy-sets/polset-nosuchset/relationships/${name}`, { body: refs(type, member) })).status, 404);
      }
      const read = (await t.call('GET', `/policy-sets/${id}`)).json.data.relationships;
      assert.deepEqual(
        [read.workspaces.data, read.projects.data, read['workspace-exclusions'].data, read['project-exclusions'].data],
        [[{ id: 'ws-app1', type: 'workspaces' }], [{ id: 'prj-web', type: 'projects' }], [{ id: 'ws-ops1', type: 'workspaces' }], [{ id: 'prj-ops', type: 'projects' }]],
      );
      assert.equal((await t.call('DELETE', `/policy-sets/${id}/relationships/workspaces`, { body: refs('workspaces', 'ws-app1') })).status, 204);
      assert.deepEqual((await t.call('GET', `/policy-sets/${id}`)).json.data.relationships.workspaces.data, []);
      const wrongType = await t.call('POST', `/policy-sets/${id}/relationships/projects`, { body: refs('workspaces', 'ws-app1') });
      assert.equal(wrongType.status, 422);
      await t.call('DELETE', `/policy-sets/${id}`);
    });

    it('lists with search[name], filter[kind], filter[versioned] and include (with _ or -), 20 a page; an unknown include is a 400', async () => {
      const a = (await t.call('POST', `/organizations/${ORG}/policy-sets`, { body: setBody('listed-a', {}, { workspaces: refs('workspaces', 'ws-app1'), projects: refs('projects', 'prj-ops') }) })).json.data.id as string;
      const names = async (query: string) => ((await t.call('GET', `/organizations/${ORG}/policy-sets${query}`)).json.data as Array<{ attributes: { name: string } }>).map((s) => s.attributes.name).sort();
      assert.deepEqual(await names('?search[name]=LISTED'), ['listed-a']);
      assert.deepEqual(await names('?filter[kind]=opa'), ['rego-set']);
      assert.deepEqual(await names(`?filter[kind]=${dialect}`), ['listed-a', 'polset-seeded']);
      assert.deepEqual(await names('?filter[versioned]=true'), []);
      assert.deepEqual(await names('?filter[versioned]=false'), ['listed-a', 'polset-seeded', 'rego-set']);
      for (const include of ['workspaces,project_exclusions,projects', 'workspaces,project-exclusions,projects']) {
        const listed = await t.call('GET', `/organizations/${ORG}/policy-sets?search[name]=listed&include=${include}`);
        assert.equal(listed.status, 200, listed.text);
        const included = (listed.json.included as Array<{ type: string; id: string; attributes: { name: string } }>).map((r) => `${r.type}/${r.id}/${r.attributes.name}`).sort();
        assert.deepEqual(included, ['projects/prj-ops/Platform Ops', 'workspaces/ws-app1/app-frontend']);
      }
      assert.equal((await t.call('GET', `/organizations/${ORG}/policy-sets?include=owners`)).status, 400);
      assert.equal((await t.call('GET', `/organizations/${ORG}/policy-sets`)).json.meta.pagination['page-size'], 20);
      await t.call('DELETE', `/policy-sets/${a}`);
    });

    it('workspaces: search[name] and search[wildcard-name] (* as prefix, suffix or both), 100 a page at most; projects by filter[names], any case', async () => {
      const names = async (query: string) => ((await t.call('GET', `/organizations/${ORG}/workspaces${query}`)).json.data as Array<{ attributes: { name: string } }>).map((w) => w.attributes.name).sort();
      assert.deepEqual(await names('?search[name]=APP'), ['app-backend', 'app-frontend']);
      assert.deepEqual(await names('?search[wildcard-name]=app-*'), ['app-backend', 'app-frontend']);
      assert.deepEqual(await names('?search[wildcard-name]=*end'), ['app-backend', 'app-frontend']);
      assert.deepEqual(await names('?search[wildcard-name]=*-front*'), ['app-frontend']);
      assert.deepEqual(await names('?search[wildcard-name]=ops'), ['ops']);
      assert.deepEqual(await names('?search[wildcard-name]=op'), [], 'without *: the whole name');
      assert.equal((await t.call('GET', `/organizations/${ORG}/workspaces?page[size]=500`)).status, 422);
      const big = await t.call('GET', `/organizations/${ORG}/workspaces?page[size]=100`);
      assert.equal(big.json.data.length, 100);
      assert.equal(big.json.meta.pagination['total-count'], 133);
      assert.equal(big.json.meta.pagination['next-page'], 2);
      const ws = (await t.call('GET', `/organizations/${ORG}/workspaces?search[wildcard-name]=ops`)).json.data[0];
      assert.deepEqual(ws.relationships.project.data, { id: 'prj-ops', type: 'projects' });
      const projects = await t.call('GET', `/organizations/${ORG}/projects?filter[names]=web,PLATFORM%20OPS,nope`);
      assert.deepEqual((projects.json.data as Array<{ id: string; attributes: { name: string } }>).map((p) => [p.id, p.attributes.name]), [['prj-web', 'Web'], ['prj-ops', 'Platform Ops']]);
      assert.deepEqual((await t.call('GET', `/organizations/${ORG}/projects?filter[names]=Platform`)).json.data, [], 'whole names only');
    });
  });
}

describe('the entitlement set and the edition\'s limits', () => {
  let t: TestEmulator;
  before(async () => (t = await TestEmulator.start({
    organizations: [
      { name: 'free', entitlements: { policySetLimit: 1, policyLimit: 5, versionedPolicySetLimit: 0 } },
      { name: 'paid' },
    ],
  })));
  after(() => t.close());

  it('answers the seed\'s limits, null for none; a create past one is a 422 naming it', async () => {
    const free = await t.call('GET', '/organizations/free/entitlement-set');
    assert.equal(free.status, 200);
    assert.equal(free.json.data.type, 'entitlement-sets');
    assert.deepEqual([free.json.data.attributes['policy-set-limit'], free.json.data.attributes['policy-limit'], free.json.data.attributes['versioned-policy-set-limit']], [1, 5, 0]);
    const paid = await t.call('GET', '/organizations/paid/entitlement-set');
    assert.deepEqual([paid.json.data.attributes['policy-set-limit'], paid.json.data.attributes['policy-limit']], [null, null]);
    assert.equal((await t.call('GET', '/organizations/nosuch/entitlement-set')).status, 404);
    const first = await t.call('POST', '/organizations/free/policy-sets', { body: setBody('one') });
    assert.equal(first.status, 201);
    const version = await t.call('POST', `/policy-sets/${first.json.data.id}/versions`);
    assert.equal(version.status, 422);
    assert.match(version.json.errors[0].detail, /Versioned policy set limit of 0/);
    const second = await t.call('POST', '/organizations/free/policy-sets', { body: setBody('two') });
    assert.equal(second.status, 422);
    assert.match(second.json.errors[0].detail, /Policy set limit of 1/);
    const ids: string[] = [];
    for (let i = 0; i < 6; i += 1) {
      ids.push((await t.call('POST', '/organizations/free/policies', { body: { data: { type: 'policies', attributes: { name: `p${i}`, kind: 'native' } } } })).json.data.id);
    }
    const tooMany = await t.call('POST', `/policy-sets/${first.json.data.id}/relationships/policies`, { body: refs('policies', ...ids) });
    assert.equal(tooMany.status, 422);
    assert.match(tooMany.json.errors[0].detail, /Policy limit of 5/);
    assert.equal((await t.call('POST', `/policy-sets/${first.json.data.id}/relationships/policies`, { body: refs('policies', ...ids.slice(0, 5)) })).status, 204);
  });
});

describe('a policy set never has both a VCS repository and individual policies', () => {
  let t: TestEmulator;
  before(async () => (t = await TestEmulator.start(seed('native'))));
  after(() => t.close());
  const vcsRepo = { identifier: 'org/repo', 'oauth-token-id': 'ot-1' };

  it('refused (422) whichever way it would come: created with both, a repository given to a set holding a policy, a policy added to a VCS set', async () => {
    const policy = await t.call('POST', `/organizations/${ORG}/policies`, { body: { data: { type: 'policies', attributes: { name: 'member', kind: 'native', 'enforcement-level': 'advisory' } } } });
    const pol = policy.json.data.id as string;
    const both = await t.call('POST', `/organizations/${ORG}/policy-sets`, { body: setBody('both', { 'vcs-repo': vcsRepo }, { policies: refs('policies', pol) }) });
    assert.equal(both.status, 422, both.text);
    assert.equal(both.json.errors[0].source.pointer, '/data/relationships/policies');
    const members = await t.call('POST', `/organizations/${ORG}/policy-sets`, { body: setBody('members', {}, { policies: refs('policies', pol) }) });
    assert.equal(members.status, 201, members.text);
    const toVcs = await t.call('PATCH', `/policy-sets/${members.json.data.id as string}`, { body: { data: { type: 'policy-sets', attributes: { 'vcs-repo': vcsRepo } } } });
    assert.equal(toVcs.status, 422, toVcs.text);
    assert.equal(toVcs.json.errors[0].source.pointer, '/data/attributes/vcs-repo');
    const vcs = await t.call('POST', `/organizations/${ORG}/policy-sets`, { body: setBody('from-vcs', { 'vcs-repo': vcsRepo }) });
    assert.equal(vcs.status, 201, vcs.text);
    const joined = await t.call('POST', `/policy-sets/${vcs.json.data.id as string}/relationships/policies`, { body: refs('policies', pol) });
    assert.equal(joined.status, 422, joined.text);
    const state = await t.organization(ORG);
    assert.deepEqual(state['policy-sets'].filter((s) => s.name !== 'polset-seeded' && s.name !== 'rego-set').map((s) => s.name).sort(), ['from-vcs', 'members']);
  });
});
