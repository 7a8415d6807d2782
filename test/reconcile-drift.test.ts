import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { withMarker } from '../src/plan/marker.js';
import { smallRepo, REQUIRE_TAGS } from './helpers/repos.js';
import { ORG, WORKSPACES } from './helpers/emulator.js';
import { writeTree } from './helpers/temp-tree.js';
import { useWorld, type World } from './helpers/world.js';

interface JsonPlan {
  sources: Array<{
    name: string;
    changes: Array<{ resource: string; name: string; action: string; id: string | null; fields: Record<string, { before: unknown; after: unknown }> }>;
    errors: string[];
  }>;
  summary: Record<string, number>;
}

interface Resource {
  id: string;
  attributes: Record<string, unknown>;
}

describe('drift made behind the tool', () => {
  const fixture = useWorld();
  let world: World;
  let dir: string;
  const ids = new Map<string, string>();

  before(async () => {
    world = fixture.world;
    dir = await fixture.repo(smallRepo());
    const applied = await world.cli('--reconcile', dir);
    assert.equal(applied.code, 0, applied.stderr + applied.stdout);
    const list = await world.call('GET', `/organizations/${ORG}/policies`);
    for (const p of (list.json as { data: Resource[] }).data) ids.set(p.attributes['name'] as string, p.id);
    const pools = await world.call('GET', `/organizations/${ORG}/agent-pools`);
    ids.set('pool:build', (pools.json as { data: Resource[] }).data[0]!.id);
  });

  async function dryRunJson(extra: string[] = []): Promise<{ code: number | null; plan: JsonPlan }> {
    const run = await world.cli('--dry-run', dir, ['--output', 'json', '--detailed-exitcode', ...extra]);
    assert.doesNotThrow(() => JSON.parse(run.stdout), run.stderr);
    return { code: run.code, plan: JSON.parse(run.stdout) as JsonPlan };
  }

  it('a change of line ends alone is not drift', async () => {
    const upload = await world.call('PUT', `/policies/${ids.get('require-tags')}/upload`, { raw: REQUIRE_TAGS.replace(/\n/g, '\r\n'), contentType: 'application/octet-stream' });
    assert.equal(upload.status, 200);
    const { code, plan } = await dryRunJson();
    assert.equal(code, 0, JSON.stringify(plan));
    assert.deepEqual(plan.sources[0]!.changes, []);
  });

  it('shows each drift exactly, exits 2, and the next reconcile repairs it', async () => {
    const source = (await dryRunJson()).plan.sources[0]!.name;
    const patch = (id: string, attributes: Record<string, unknown>) =>
      world.call('PATCH', `/policies/${id}`, { body: { data: { type: 'policies', attributes } } });
    await patch(ids.get('require-tags')!, { 'enforcement-level': 'hard-mandatory' });
    await patch(ids.get('deny-public')!, { query: 'data.terraform.storage.allow' });
    await world.call('PUT', `/policies/${ids.get('limit-size')}/upload`, { raw: 'main = rule { false }\n', contentType: 'application/octet-stream' });
    assert.equal((await world.call('DELETE', `/policies/${ids.get('audit-only')}`)).status, 204);
    for (const [name, description] of [['stray-owned', withMarker('left behind', source)], ['stray-foreign', 'made by hand']] as const) {
      const created = await world.call('POST', `/organizations/${ORG}/policies`, { body: {
        data: { type: 'policies', attributes: { name, description, kind: 'native', 'enforcement-level': 'advisory' } },
      } });
      assert.equal(created.status, 200, JSON.stringify(created.json));
    }
    await world.call('PATCH', `/agent-pools/${ids.get('pool:build')}`, { body: {
      // Scope sent as it is: a PATCH without it opens the pool (its documented default), which the emulator models.
      data: {
        type: 'agent-pools',
        attributes: { 'organization-scoped': false },
        relationships: { 'allowed-workspaces': { data: [{ type: 'workspaces', id: WORKSPACES[1]!.id }] } },
      },
    } });

    await world.clearRequests();
    const { code, plan } = await dryRunJson(['--prune', '--source', 'default']);
    assert.equal(code, 2);
    assert.deepEqual(await world.writes(), [], 'a dry run sends no write');
    const changes = plan.sources[0]!.changes;
    const summary = changes.map((c) => `${c.action} ${c.resource} ${c.name}`).sort();
    assert.deepEqual(summary, [
      'create policy audit-only',
      'delete policy stray-owned',
      'update agent-pool build',
      'update policy deny-public',
      'update policy limit-size',
      'update policy require-tags',
    ]);
    const fieldsOf = (name: string) => Object.keys(changes.find((c) => c.name === name)!.fields).sort();
    assert.deepEqual(fieldsOf('require-tags'), ['enforcement-level']);
    assert.deepEqual(fieldsOf('deny-public'), ['query']);
    assert.deepEqual(fieldsOf('limit-size'), ['code']);
    assert.deepEqual(fieldsOf('build'), ['allowed-workspaces']);
    const field = (name: string, key: string) => changes.find((c) => c.name === name)!.fields[key];
    assert.deepEqual(field('require-tags', 'enforcement-level'), { before: 'hard-mandatory', after: 'soft-mandatory' });
    assert.deepEqual(field('deny-public', 'query'), { before: 'data.terraform.storage.allow', after: 'data.terraform.storage.deny_public_buckets' });
    assert.deepEqual(field('build', 'allowed-workspaces'), { before: [WORKSPACES[1]!.id], after: [WORKSPACES[0]!.id] });
    assert.deepEqual(plan.summary, { create: 1, update: 4, replace: 0, delete: 1 });

    const repaired = await world.cli('--reconcile', dir, ['--prune', '--source', 'default']);
    assert.equal(repaired.code, 0, repaired.stderr + repaired.stdout);
    const again = await dryRunJson(['--prune', '--source', 'default']);
    assert.equal(again.code, 0, JSON.stringify(again.plan));
    const names = (await world.organization()).policies.map((p) => p['name']).sort();
    assert.deepEqual(names, ['audit-only', 'deny-public', 'limit-size', 'require-tags', 'stray-foreign']);
  });

  it('without --prune an undeclared policy is left alone', async () => {
    const { code, plan } = await dryRunJson();
    assert.equal(code, 0, JSON.stringify(plan));
  });

  it('adopts a declared policy that exists without the marker by writing the marker, then sees no drift', async () => {
    const created = await world.call('POST', `/organizations/${ORG}/policies`, { body: {
      data: { type: 'policies', attributes: { name: 'hand-made', description: 'made by hand', kind: 'native', 'enforcement-level': 'advisory' } },
    } });
    assert.equal(created.status, 200);
    const id = (created.json as { data: Resource }).data.id;
    await world.call('PUT', `/policies/${id}/upload`, { raw: 'main = rule { true }\n', contentType: 'application/octet-stream' });
    await writeTree(dir, { 'policies/hand-made.native': 'main = rule { true }\n', 'policies/hand-made.yaml': 'description: made by hand\n' });

    const { code, plan } = await dryRunJson();
    assert.equal(code, 2);
    assert.deepEqual(plan.sources[0]!.changes.map((c) => [c.action, c.name, Object.keys(c.fields)]), [['update', 'hand-made', []]]);
    assert.equal((await world.cli('--reconcile', dir)).code, 0);
    const live = (await world.organization()).policies.find((p) => p['name'] === 'hand-made');
    assert.equal(live?.['description'], withMarker('made by hand', plan.sources[0]!.name));
    assert.equal((await dryRunJson()).code, 0);
  });
});
