import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ApiClient } from '../src/api/client.js';
import { applyPlan } from '../src/apply/apply.js';
import { readDeclared } from '../src/declared/index.js';
import { readLive } from '../src/live/read-live.js';
import { silentLogger } from '../src/logger.js';
import type { Ownership } from '../src/model.js';
import { marker } from '../src/plan/marker.js';
import { planChanges } from '../src/plan/plan.js';
import type { ChangeResult } from '../src/plan/types.js';
import { ORG, policyBody } from './helpers/emulator.js';
import { useWorld, type World } from './helpers/world.js';

const CODE = (n: number) => `main = rule { ${n} >= 0 }\n`;
const OPA = 'package met\n\nimport rego.v1\n\ndeny contains "no" if { false }\n';

/**
 * Source `owner-a` plans the create of `name`; then `meanwhile` runs (another source creates the same name); then
 * the plan is applied, with the create's answer lost when `lost`. Resolves with the create's result.
 */
async function planThenApply(
  world: World,
  dir: string,
  name: string,
  options: { ownership: Ownership; lost: boolean; meanwhile: () => Promise<void> },
): Promise<ChangeResult> {
  const api = new ApiClient({ baseUrl: world.url, token: world.token, logger: silentLogger() });
  try {
    const declared = await readDeclared(dir);
    const live = await readLive({ api, organization: ORG, declared, logger: silentLogger() });
    const source = 'owner-a';
    const plan = planChanges(declared, live, { source, ownership: options.ownership, prune: false, allowEmpty: false, maxDeletes: 10, force: false, now: Date.now() });
    assert.deepEqual(plan.changes.map((c) => `${c.action} ${c.name}`), [`create ${name}`]);
    await options.meanwhile();
    if (options.lost) await world.addFaults({ kind: 'lose-response', method: 'POST', path: '/policies$', count: 1 });
    const [result] = await applyPlan(plan, { api, organization: ORG, source, ownership: options.ownership, logger: silentLogger() });
    assert.ok(result);
    return result;
  } finally {
    await world.clearFaults();
    await api.close();
  }
}

/** Creates a policy as another party would, with its code. */
async function createAsOther(world: World, name: string, attributes: Record<string, unknown>, code: string): Promise<void> {
  const made = await world.call('POST', `/organizations/${ORG}/policies`, { body: policyBody(name, attributes) });
  assert.equal(made.status, 200, made.text);
  const id = (made.json as { data: { id: string } }).data.id;
  const uploaded = await world.call('PUT', `/policies/${id}/upload`, { raw: code, contentType: 'application/octet-stream' });
  assert.ok(uploaded.status < 300, uploaded.text);
}

describe('apply: a create that meets a policy made since the plan decides ownership as the plan does', () => {
  const fixture = useWorld();

  for (const lost of [false, true]) {
    const answer = lost ? 'its answer is lost' : 'the 422 arrives';
    it(`a policy another source created meanwhile is a conflict naming it and its owner, never written (${answer})`, async () => {
      const { world } = fixture;
      const name = `shared-${lost ? 'lost' : 'answered'}`;
      const dir = await fixture.repo({ [`policies/${name}.native`]: CODE(1) });
      const result = await planThenApply(world, dir, name, {
        ownership: 'marker',
        lost,
        meanwhile: () => createAsOther(world, name, { kind: 'native', description: marker('owner-b'), 'enforcement-level': 'advisory' }, CODE(2)),
      });
      assert.equal(result.outcome, 'failed');
      assert.match(result.message ?? '', new RegExp(`^conflict: a native policy "${name}" appeared since the plan was made and carries the ownership marker of source "owner-b"; it is left alone`));
      const policies = (await world.policies()).filter((p) => p.name === name);
      assert.equal(policies.length, 1);
      assert.equal(policies[0]?.code, CODE(2), 'owner-b\'s code is untouched');
      assert.equal(policies[0]?.description, marker('owner-b'));
    });
  }

  it('a policy of another kind met after a lost answer is not taken, even one this source would own', async () => {
    const { world } = fixture;
    const dir = await fixture.repo({ 'policies/kind-met.native': CODE(3) });
    const result = await planThenApply(world, dir, 'kind-met', {
      ownership: 'organization',
      lost: true,
      meanwhile: () => createAsOther(world, 'kind-met', { kind: 'opa', query: 'data.met.deny', 'enforcement-level': 'advisory' }, OPA),
    });
    assert.equal(result.outcome, 'failed');
    assert.match(result.message ?? '', /^conflict: a opa policy "kind-met" appeared since the plan was made and carries no ownership marker/);
    const met = (await world.policies()).find((p) => p.name === 'kind-met');
    assert.equal(met?.code, OPA);
  });

  for (const lost of [false, true]) {
    it(`a policy of a kind this tool does not know, met by a create, is not taken even with this source's marker (${lost ? 'its answer is lost' : 'the 422 arrives'})`, async () => {
      const { world } = fixture;
      const name = `beta-met-${lost ? 'lost' : 'answered'}`;
      const dir = await fixture.repo({ [`policies/${name}.native`]: CODE(7) });
      const result = await planThenApply(world, dir, name, {
        ownership: 'marker',
        lost,
        meanwhile: async () => {
          // Only an API that calls the native kind sentinel takes the beta kind: made there, then read as the document's.
          await world.setBehaviour({ 'native-kind': 'sentinel' });
          await createAsOther(world, name, { kind: 'tfpolicy', description: marker('owner-a'), 'enforcement-level': 'advisory' }, CODE(8));
          await world.setBehaviour({ 'native-kind': 'native' });
        },
      });
      assert.equal(result.outcome, 'failed', result.message ?? '');
      const met = (await world.policies()).filter((p) => p.name === name);
      assert.deepEqual(met.map((p) => [p.kind, p.code, p.description]), [['tfpolicy', CODE(8), marker('owner-a')]], 'the policy met is left as it was');
      const writes = (await world.requests()).filter((r) => r.path.includes(`/policies/${met[0]?.id}`) && r.method !== 'GET');
      assert.deepEqual(writes.map((r) => r.method), ['PUT'], 'no write but the other party\'s own upload');
    });
  }

  it('its own create whose answer was lost is found and used: one policy, one POST, with its code', async () => {
    const { world } = fixture;
    const dir = await fixture.repo({ 'policies/own-lost.native': CODE(4) });
    await world.clearRequests();
    const result = await planThenApply(world, dir, 'own-lost', { ownership: 'marker', lost: true, meanwhile: async () => {} });
    assert.equal(result.outcome, 'applied', result.message ?? '');
    const posts = (await world.requests()).filter((r) => r.method === 'POST' && r.path.endsWith('/policies'));
    assert.deepEqual(posts.map((r) => r.status), [null]);
    const own = (await world.policies()).filter((p) => p.name === 'own-lost');
    assert.deepEqual(own.map((p) => [p.code, p.description]), [[CODE(4), marker('owner-a')]]);
  });
});

describe('prune under ownership marker', () => {
  const fixture = useWorld();

  it('with adopt on, never deletes another source\'s policy it does not declare', async () => {
    const { world } = fixture;
    const b = await fixture.repo({ 'policies/b-only.native': CODE(5) });
    assert.equal((await world.cli('--reconcile', b, ['--source', 'owner-b'])).code, 0);
    const a = await fixture.repo({ 'policies/a-only.native': CODE(6) });
    const run = await world.cli('--reconcile', a, ['--source', 'owner-a', '--adopt', '--prune']);
    assert.equal(run.code, 0, run.stdout + run.stderr);
    const names = (await world.policies()).map((p) => p.name).filter((n) => n.endsWith('-only')).sort();
    assert.deepEqual(names, ['a-only', 'b-only']);
  });
});

describe('apply: a policy set create that meets a set made since the plan decides ownership as a policy create does', () => {
  const fixture = useWorld();

  /** Plans the create of the set declared in `dir` as `owner-a`, runs `meanwhile`, then applies, the create's answer lost when `lost`. */
  async function planThenApplySet(world: World, dir: string, lost: boolean, meanwhile: () => Promise<void>): Promise<ChangeResult> {
    const api = new ApiClient({ baseUrl: world.url, token: world.token, logger: silentLogger() });
    try {
      const declared = await readDeclared(dir);
      const live = await readLive({ api, organization: ORG, declared, logger: silentLogger() });
      const options = { source: 'owner-a', ownership: 'marker' as const, prune: false, allowEmpty: false, maxDeletes: 10, force: false, now: Date.now() };
      const plan = planChanges(declared, live, options);
      assert.deepEqual(plan.changes.map((c) => `${c.action} ${c.resource}`), ['create policy-set']);
      await meanwhile();
      if (lost) await world.addFaults({ kind: 'lose-response', method: 'POST', path: '/policy-sets$', count: 1 });
      const [result] = await applyPlan(plan, { api, organization: ORG, source: 'owner-a', ownership: 'marker', logger: silentLogger() });
      assert.ok(result);
      return result;
    } finally {
      await world.clearFaults();
      await api.close();
    }
  }

  const setsNamed = async (world: World, name: string) =>
    ((await world.call('GET', `/organizations/${ORG}/policy-sets`)).json as { data: Array<{ id: string; attributes: { name: string; description: string | null } }> }).data
      .filter((s) => s.attributes.name === name);

  for (const lost of [false, true]) {
    it(`a set another source created meanwhile is a conflict naming it and its owner, never written (${lost ? 'its answer is lost' : 'the 422 arrives'})`, async () => {
      const { world } = fixture;
      const name = `shared-set-${lost ? 'lost' : 'answered'}`;
      const dir = await fixture.repo({ [`policy-sets/${name}.yaml`]: 'description: ours\n' });
      const result = await planThenApplySet(world, dir, lost, async () => {
        const made = await world.call('POST', `/organizations/${ORG}/policy-sets`, { body: { data: { type: 'policy-sets', attributes: { name, kind: 'native', description: marker('owner-b') } } } });
        assert.equal(made.status, 201, made.text);
      });
      assert.equal(result.outcome, 'failed');
      assert.match(result.message ?? '', new RegExp(`^conflict: a native policy set "${name}" appeared since the plan was made and carries the ownership marker of source "owner-b"; it is left alone`));
      assert.deepEqual((await setsNamed(world, name)).map((s) => s.attributes.description), [marker('owner-b')], 'owner-b\'s set is untouched');
    });
  }

  it('its own set create whose answer was lost is found and used: one set, one POST, with its marker', async () => {
    const { world } = fixture;
    const dir = await fixture.repo({ 'policy-sets/own-lost-set.yaml': 'description: ours\n' });
    await world.clearRequests();
    const result = await planThenApplySet(world, dir, true, async () => {});
    assert.equal(result.outcome, 'applied', result.message ?? '');
    const posts = (await world.requests()).filter((r) => r.method === 'POST' && r.path.endsWith('/policy-sets'));
    assert.equal(posts.length, 1);
    assert.deepEqual((await setsNamed(world, 'own-lost-set')).map((s) => s.attributes.description), [`ours\n\n${marker('owner-a')}`]);
  });
});
