/**
 * Policy sets scoped by workspace tags: sent as the API's tag selectors with scoping type `tag`, drift in them
 * repaired, the mixes the service refuses refused before any request, the plan naming the workspaces the tags match
 * today, and evidence read from the runs of those workspaces.
 */
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, it } from 'node:test';
import { runCli } from './helpers/cli.js';
import { ORG } from './helpers/emulator.js';
import { useWorld } from './helpers/world.js';

const WORKSPACES = [
  { id: 'ws-AppProd000001', name: 'app-prod', tags: ['env:prod', 'team'] },
  { id: 'ws-DataProd00001', name: 'data-prod', tags: ['env:prod'] },
  { id: 'ws-WebDev0000001', name: 'web-dev', tags: ['env:dev', 'team'] },
  { id: 'ws-Sandbox000001', name: 'sandbox', tags: ['env:prod', 'sandbox'] },
];

interface SetState {
  id: string;
  name: string;
  'tag-selectors': string[];
  'scoping-type': string;
  'tag-selector-match': string;
  'workspace-ids': string[];
}

function repo(tags: string, level = 'advisory'): Record<string, string> {
  return {
    'policy-sets/prod-baseline.yaml': `tags: ${tags}\n`,
    'policies/s3-encryption.native': 'main = rule { true }\n',
    'policies/s3-encryption.yaml': `enforcement-level: ${level}\npolicy-sets: [prod-baseline]\n`,
  };
}

describe('policy sets scoped by workspace tags', () => {
  const fixture = useWorld({ organizations: [{ name: ORG, maxAgentPools: 1, workspaces: WORKSPACES }] });

  async function set(): Promise<SetState | undefined> {
    const state = (await fixture.world.control('GET', '/state')).json as { organizations: Array<{ name: string; 'policy-sets': SetState[] }> };
    return state.organizations.find((o) => o.name === ORG)?.['policy-sets'].find((s) => s.name === 'prod-baseline');
  }

  it('creates the set with its selectors and scoping type tag, names the workspaces they match today, and repairs drift', async () => {
    const world = fixture.world;
    const dir = await fixture.repo(repo('{ include: ["env:prod", "team"], exclude: [sandbox], match: any }'));
    const plan = await world.cli('--dry-run', dir);
    assert.equal(plan.code, 0, plan.stderr);
    assert.match(plan.stdout, /\+ tags += \["!sandbox", "env:prod", "team"\]/);
    assert.match(plan.stdout, /# "env:prod, team, !sandbox \(match any\)" matched app-prod, data-prod, web-dev today/);
    assert.match(plan.stdout, /\+ scoping-type += "tag"/);
    const applied = await world.cli('--reconcile', dir);
    assert.equal(applied.code, 0, applied.stdout + applied.stderr);
    const made = await set();
    assert.deepEqual(made?.['tag-selectors'].sort(), ['!sandbox', 'env:prod', 'team']);
    assert.equal(made?.['scoping-type'], 'tag');
    assert.equal(made?.['tag-selector-match'], 'any');
    assert.equal((await world.cli('--dry-run', dir, ['--detailed-exitcode'])).code, 0, 'a second pass changes nothing');

    // Someone removes a selector and sets the match to all: both are drift, repaired by the next pass.
    const removed = await world.call('DELETE', `/policy-sets/${made!.id}/tag-selectors`, { body: { data: [{ 'tag-key': 'team', 'tag-value': null, 'is-exclude': false }] } });
    assert.equal(removed.status, 204, removed.text);
    const patched = await world.call('PATCH', `/policy-sets/${made!.id}`, { body: { data: { type: 'policy-sets', attributes: { 'tag-selector-match': 'all' } } } });
    assert.equal(patched.status, 200, patched.text);
    const drift = await world.cli('--reconcile', dir);
    assert.equal(drift.code, 0, drift.stdout + drift.stderr);
    assert.match(drift.stdout, /~ tags += \["!sandbox", "env:prod"\] -> \["!sandbox", "env:prod", "team"\]/);
    assert.match(drift.stdout, /~ tag-match += "all" -> "any"/);
    const repaired = await set();
    assert.deepEqual(repaired?.['tag-selectors'].sort(), ['!sandbox', 'env:prod', 'team']);
    assert.equal(repaired?.['tag-selector-match'], 'any');

    // --export writes the tags back as the repo declared them.
    const out = path.join(await fixture.repo(), 'export');
    const exported = await runCli(['--export', out, '--organization', ORG, '--api-url', world.url], { env: { API_TOKEN: world.token, LOG_LEVEL: 'warn' } });
    assert.equal(exported.code, 0, exported.stderr);
    assert.match(await readFile(path.join(out, 'policy-sets', 'prod-baseline.yaml'), 'utf8'), /tags:\n {2}include:\n {4}- env:prod\n {4}- team\n {2}match: any\n {2}exclude:\n {4}- sandbox\n/);
  });

  it('reads the evidence of a tightening from the runs of the workspaces the tags hold, an exclusion tag winning', async () => {
    const world = fixture.world;
    const globalRepo = (level: string) => ({ ...repo('{ exclude: [sandbox] }', level), 'policy-sets/prod-baseline.yaml': 'global: true\ntags: { exclude: [sandbox] }\n' });
    const applied = await world.cli('--reconcile', await fixture.repo(globalRepo('advisory')));
    assert.equal(applied.code, 0, applied.stdout + applied.stderr);
    // The emulator's runs see the set's coverage: global, but the sandbox's tag exempts it, so no set there holds the policy.
    const outside = await world.control('POST', '/runs', { workspace: 'ws-Sandbox000001', outcomes: { 's3-encryption': 'failed' } });
    assert.equal(outside.status, 400, outside.text);
    for (const [workspace, outcome] of [['ws-AppProd000001', 'failed'], ['ws-DataProd00001', 'passed'], ['ws-WebDev0000001', 'passed']]) {
      const run = await world.control('POST', '/runs', { workspace, outcomes: { 's3-encryption': outcome } });
      assert.equal(run.status, 200, run.text);
    }
    const evidenceOf = async (dir: string) => {
      const plan = await world.cli('--dry-run', dir, ['--output', 'json']);
      assert.equal(plan.code, 0, plan.stderr);
      const changes = (JSON.parse(plan.stdout) as { sources: Array<{ changes: Array<{ name: string; evidence?: { in_scope: number; failing: string[]; passing: number } }> }> }).sources[0]!.changes;
      const evidence = changes.find((c) => c.name === 's3-encryption')?.evidence;
      return evidence && { in_scope: evidence.in_scope, failing: evidence.failing, passing: evidence.passing };
    };
    assert.deepEqual(await evidenceOf(await fixture.repo(globalRepo('hard-mandatory'))), { in_scope: 3, failing: ['app-prod'], passing: 2 }, 'global but the sandbox');
    assert.deepEqual(await evidenceOf(await fixture.repo(repo('{ include: ["env:prod"], exclude: [sandbox], match: all }', 'hard-mandatory'))), { in_scope: 2, failing: ['app-prod'], passing: 1 },
      'the sandbox is excluded by its tag, web-dev is not env:prod');
  });

  it('a workspace tagged since (go-tfe\'s AddTagBindings) is among the matches of the next plan', async () => {
    const world = fixture.world;
    const tagged = await world.call('PATCH', '/workspaces/ws-WebDev0000001/tag-bindings', { body: { data: [{ type: 'tag-bindings', attributes: { key: 'env', value: 'prod' } }] } });
    assert.equal(tagged.status, 200, tagged.text);
    assert.deepEqual((tagged.json as { data: Array<{ attributes: { key: string; value: string } }> }).data.map((b) => `${b.attributes.key}:${b.attributes.value}`), ['env:prod', 'team:']);
    const plan = await world.cli('--dry-run', await fixture.repo(repo('{ include: ["env:prod"], match: all }')));
    assert.match(plan.stdout, /# "env:prod \(match all\)" matched app-prod, data-prod, sandbox, web-dev today/);
  });

  it('refuses tags.include beside workspaces or projects, and beside global, naming the file, before any request', async () => {
    const world = fixture.world;
    await world.clearRequests();
    for (const [extra, message] of [
      ['workspaces: [app-prod]\n', /policy-sets\/prod-baseline\.yaml:2: tags\.include is not allowed with workspaces/],
      ['global: true\n', /policy-sets\/prod-baseline\.yaml:2: global: true is not allowed with tags\.include/],
    ] as const) {
      const dir = await fixture.repo({ ...repo('{ include: ["env:prod"] }'), 'policy-sets/prod-baseline.yaml': `tags: { include: ["env:prod"] }\n${extra}` });
      for (const mode of ['--validate', '--dry-run']) {
        const run = await world.cli(mode, dir);
        assert.equal(run.code, 1, `${mode}: ${run.stdout}`);
        assert.match(run.stdout + run.stderr, message);
      }
    }
    assert.deepEqual(await world.requests(), []);
    const global = await fixture.repo({ ...repo('{ exclude: [sandbox] }'), 'policy-sets/prod-baseline.yaml': 'global: true\ntags: { exclude: [sandbox] }\n' });
    assert.equal((await world.cli('--validate', global)).code, 0, 'exclusions alone go with a global set');
  });
});
