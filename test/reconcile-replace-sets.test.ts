import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { withMarker } from '../src/plan/marker.js';
import { ORG, POLICY_SET, policyBody } from './helpers/emulator.js';
import { useWorld, type World } from './helpers/world.js';

const REGO = 'package terraform.moved\n\ndeny contains "x" if { false }\n';

/** A native policy of this source in the organization's policy set, with code. */
async function nativeInSet(world: World, name: string): Promise<string> {
  const made = await world.call('POST', `/organizations/${ORG}/policies`, {
    body: policyBody(name, { kind: 'native', description: withMarker(null, 'default'), 'enforcement-level': 'advisory' }, [POLICY_SET]),
  });
  assert.equal(made.status, 200, made.text);
  await world.call('PUT', `/policies/${made.json.data.id}/upload`, { raw: 'main = rule { true }\n', contentType: 'application/octet-stream' });
  return made.json.data.id as string;
}

describe('a replace when the list leaves out the policy sets', () => {
  const fixture = useWorld();

  it('reads the policy with include=policy_sets and restores its sets', async () => {
    const { world } = fixture;
    await nativeInSet(world, 'moved-one');
    await world.setBehaviour({ 'list-omits-policy-sets': true });
    try {
      const dir = await fixture.repo({ 'policies/moved-one.rego': REGO, 'policies/moved-one.yaml': 'query: data.terraform.moved.deny\n' });
      const applied = await world.cli('--reconcile', dir);
      assert.equal(applied.code, 0, applied.stderr + applied.stdout);
      assert.match(applied.stdout, /-\/\+/);
      const replaced = (await world.policies()).find((p) => p.name === 'moved-one');
      assert.equal(replaced?.kind, 'opa');
      assert.deepEqual(replaced?.['policy-set-ids'], [POLICY_SET]);
      assert.ok((await world.requests()).some((r) => r.method === 'GET' && /^\/policies\/pol-[^/?]+\?include=policy_sets$/.test(decodeURIComponent(r.path))));
    } finally {
      await world.setBehaviour({ 'list-omits-policy-sets': false });
    }
  });

  it('refuses the replace, naming the policy, when the sets still cannot be known; the policy is not deleted', async () => {
    const { world } = fixture;
    const id = await nativeInSet(world, 'stuck-one');
    await world.setBehaviour({ 'list-omits-policy-sets': true, 'show-omits-policy-sets': true });
    try {
      const dir = await fixture.repo({ 'policies/stuck-one.rego': REGO, 'policies/stuck-one.yaml': 'query: data.terraform.moved.deny\n' });
      const applied = await world.cli('--reconcile', dir);
      assert.equal(applied.code, 1, applied.stdout);
      assert.match(applied.stdout + applied.stderr, /policy "stuck-one" is in 1 policy sets, but the API names only 0 of them; the replace \(delete, then create\) is refused/);
      const still = (await world.policies()).find((p) => p.name === 'stuck-one');
      assert.equal(still?.id, id);
      assert.equal(still?.kind, 'native');
    } finally {
      await world.setBehaviour({ 'list-omits-policy-sets': false, 'show-omits-policy-sets': false });
    }
  });
});
