/**
 * `--export` of an organization that already has policy sets (made by hand, by Terraform, from VCS): each written as
 * `policy-sets/<name>.yaml` with its settings, scope by name, parameters and members, so that the dry run after the
 * export plans no changes but adoptions.
 */
import assert from 'node:assert/strict';
import { mkdir, readdir, readFile, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, it } from 'node:test';
import { runCli } from './helpers/cli.js';
import { ORG, WORKSPACES, policyBody } from './helpers/emulator.js';
import { useWorld } from './helpers/world.js';

interface PlanJson {
  sources: Array<{ changes: Array<{ resource: string; name: string; reason: string }>; warnings: string[]; errors: string[] }>;
}

describe('--export of an organization with policy sets', () => {
  const fixture = useWorld({ organizations: [{ name: ORG, maxAgentPools: 1, workspaces: WORKSPACES }] });

  /** A set made through the API, as a person or Terraform makes it; its id. */
  async function makeSet(attributes: Record<string, unknown>, relationships: Record<string, unknown> = {}): Promise<string> {
    const made = await fixture.world.call('POST', `/organizations/${ORG}/policy-sets`, { body: { data: { type: 'policy-sets', attributes, relationships } } });
    assert.equal(made.status, 201, made.text);
    return (made.json as { data: { id: string } }).data.id;
  }

  async function parameter(setId: string, key: string, value: string, sensitive: boolean): Promise<void> {
    const body = { data: { type: 'vars', attributes: { key, value, category: 'policy-set', sensitive } } };
    const made = await fixture.world.call('POST', `/policy-sets/${setId}/parameters`, { body });
    assert.equal(made.status, 201, made.text);
  }

  it('writes each set with its settings, scope by name, parameters and members; the dry run after it plans only adoptions', async () => {
    const { world } = fixture;
    const app = WORKSPACES[0]!;
    const handMade = await makeSet(
      { name: 'hand-made', description: 'Made by hand', kind: 'native', global: false },
      { workspaces: { data: [{ type: 'workspaces', id: app.id }] } },
    );
    await parameter(handMade, 'region', 'eu-west-1', false);
    await parameter(handMade, 'max_size', '10', false);
    await makeSet({ name: 'opa-rules', kind: 'opa', global: true, overridable: true });
    await makeSet({ name: 'from-vcs', kind: 'native', global: false, 'vcs-repo': { identifier: 'acme/policies', branch: 'main' } });
    const created = await world.call('POST', `/organizations/${ORG}/policies`, { body: policyBody('member', { kind: 'native', 'enforcement-level': 'advisory' }, [handMade]) });
    assert.equal(created.status, 200, created.text);
    const upload = await world.call('PUT', `/policies/${(created.json as { data: { id: string } }).data.id}/upload`, { raw: Buffer.from('main = rule { true }\n'), contentType: 'application/octet-stream' });
    assert.equal(upload.status, 200, upload.text);

    const dir = path.join(await fixture.repo({}), 'exported');
    const env = { API_TOKEN: world.token, LOG_LEVEL: 'warn', STATE_DIR: world.stateDir };
    await world.clearRequests();
    const exported = await runCli(['--export', dir, '--organization', ORG, '--api-url', world.url], { env });
    assert.equal(exported.code, 0, exported.stderr + exported.stdout);
    assert.deepEqual(await world.writes(), [], 'export writes nothing to the API');
    assert.match(exported.stdout, /: 1 policy, 0 agent pools, 3 policy sets \(/);
    assert.match(exported.stdout, /Versioned policy sets \(1\): their files cannot be read back from the service[^\n]*vendor each folder[^\n]*\n {2}policy set "from-vcs": policy-sets\/from-vcs\//);

    const file = (rel: string) => readFile(path.join(dir, rel), 'utf8');
    assert.equal(await file('policy-sets/hand-made.yaml'), `description: Made by hand\nworkspaces:\n  - ${app.name}\nparameters:\n  max_size: "10"\n  region: eu-west-1\n`);
    assert.equal(await file('policy-sets/opa-rules.yaml'), 'kind: opa\nglobal: true\noverridable: true\n');
    assert.match(await file('policies/member.yaml'), /^policy-sets:\n {2}- hand-made\n$/m);

    const validated = await runCli(['--validate', '--source-dir', dir], { env });
    assert.equal(validated.code, 0, validated.stdout + validated.stderr);
    const dry = await world.cli('--dry-run', dir, ['--source', 'platform', '--output', 'json']);
    assert.equal(dry.code, 0, dry.stdout + dry.stderr);
    const [source] = (JSON.parse(dry.stdout) as PlanJson).sources;
    const changes = source!.changes.map((c) => `${c.resource} ${c.name}: ${c.reason}`).sort();
    assert.deepEqual(changes, [
      'policy member: adopt: add ownership marker',
      'policy-set hand-made: adopt: add ownership marker',
      'policy-set opa-rules: adopt: add ownership marker',
    ]);

    assert.equal((await world.cli('--reconcile', dir, ['--source', 'platform'])).code, 0);
    const again = await world.cli('--dry-run', dir, ['--source', 'platform', '--detailed-exitcode']);
    assert.equal(again.code, 0, again.stdout + again.stderr);
  });

  it('a sensitive parameter is written as {env: NAME}, which the summary says to allow and fill', async () => {
    const { world } = fixture;
    const secretive = await makeSet({ name: 'secretive', kind: 'native', global: true });
    await parameter(secretive, 'token', 'not-exported-ever', true);
    const dir = path.join(await fixture.repo({}), 'exported');
    const exported = await runCli(['--export', dir, '--organization', ORG, '--api-url', world.url], { env: { API_TOKEN: world.token, LOG_LEVEL: 'warn' } });
    assert.equal(exported.code, 0, exported.stderr + exported.stdout);
    assert.equal(await readFile(path.join(dir, 'policy-sets/secretive.yaml'), 'utf8'), 'global: true\nparameters:\n  token:\n    env: POLICY_SET_SECRETIVE_TOKEN\n');
    assert.match(exported.stdout, /Sensitive parameters \(1\): their values cannot be read back[^\n]*--parameter-env POLICY_SET_SECRETIVE_TOKEN[^\n]*\n {2}policy set "secretive" parameter "token": POLICY_SET_SECRETIVE_TOKEN/);
    assert.doesNotMatch(exported.stdout, /not-exported-ever/);

    // As the summary says: the name allowed and filled, the dry run plans only adoptions; not allowed, it is refused.
    const only = path.join(dir, 'only-secretive');
    await mkdir(path.join(only, 'policy-sets'), { recursive: true });
    await writeFile(path.join(only, 'policy-sets/secretive.yaml'), await readFile(path.join(dir, 'policy-sets/secretive.yaml')));
    const allowed = await world.cli('--dry-run', only, ['--source', 'secrets', '--output', 'json', '--parameter-env', 'POLICY_SET_SECRETIVE_TOKEN', '--allow-empty'], 'warn', { POLICY_SET_SECRETIVE_TOKEN: 'the-value' });
    assert.equal(allowed.code, 0, allowed.stdout + allowed.stderr);
    const changes = (JSON.parse(allowed.stdout) as PlanJson).sources[0]!.changes;
    assert.deepEqual(changes.map((c) => `${c.resource} ${c.name}: ${c.reason.split(';')[0]}`), ['policy-set secretive: adopt: add ownership marker']);
    const refused = await world.cli('--dry-run', only, ['--source', 'secrets'], 'warn', { POLICY_SET_SECRETIVE_TOKEN: 'the-value' });
    assert.equal(refused.code, 1, refused.stdout + refused.stderr);
  });

  it('a versioned set\'s settings go beside its folder, never through a link in the folder\'s place', async () => {
    const { world } = fixture;
    await makeSet({ name: 'vcs-described', description: 'From VCS', kind: 'native', global: true, 'vcs-repo': { identifier: 'acme/described', branch: 'main' } });
    const root = await fixture.repo({});
    const outside = path.join(root, 'outside');
    await mkdir(outside);
    const dir = path.join(root, 'exported');
    await mkdir(path.join(dir, 'policy-sets'), { recursive: true });
    await symlink(outside, path.join(dir, 'policy-sets', 'vcs-described'));
    const exported = await runCli(['--export', dir, '--organization', ORG, '--api-url', world.url, '--force'], { env: { API_TOKEN: world.token, LOG_LEVEL: 'warn' } });
    assert.equal(exported.code, 0, exported.stderr + exported.stdout);
    assert.match(exported.stdout, /policy-set "vcs-described": policy-sets\/vcs-described is a symbolic link or not a folder/);
    assert.deepEqual(await readdir(outside), [], 'nothing written through the link');

    const clean = path.join(root, 'clean');
    assert.equal((await runCli(['--export', clean, '--organization', ORG, '--api-url', world.url], { env: { API_TOKEN: world.token, LOG_LEVEL: 'warn' } })).code, 0);
    assert.equal(await readFile(path.join(clean, 'policy-sets/vcs-described/policy-set.yaml'), 'utf8'), 'description: From VCS\nglobal: true\n');
  });
});
