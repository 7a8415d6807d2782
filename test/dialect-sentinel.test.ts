import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { runCli } from './helpers/cli.js';
import { ORG, policyBody } from './helpers/emulator.js';
import { smallRepo } from './helpers/repos.js';
import { useWorld, type World, type WorldFixture } from './helpers/world.js';

/** The small repo with its native files spelled `.sentinel`, as the vendor's libraries keep them. */
function sentinelRepo(): Record<string, string> {
  return Object.fromEntries(Object.entries(smallRepo()).map(([rel, text]) => [rel.replace(/\.native$/, '.sentinel'), text]));
}

/** A config file for one local source against the world, with extra `api` and source keys. */
async function configFile(fixture: WorldFixture, dir: string, api: string[], source: string[] = []): Promise<string> {
  const { world } = fixture;
  const file = join(await fixture.repo(), 'config.yaml');
  const lines = ['api:', `  url: ${world.url}`, ...api.map((l) => `  ${l}`), 'sources:', '  - name: default', `    organization: ${ORG}`, `    path: ${dir}`, ...source.map((l) => `    ${l}`), ''];
  await writeFile(file, lines.join('\n'));
  return file;
}

function configCli(world: World, file: string, args: string[]) {
  return runCli(['--config', file, ...args], { env: { API_TOKEN: world.token, LOG_LEVEL: 'warn', STATE_DIR: world.stateDir } });
}

describe('an API that calls the native kind sentinel (native-kind: sentinel)', () => {
  const fixture = useWorld({ nativeKind: 'sentinel' });

  it('the emulator answers 422 to kind native and takes sentinel', async () => {
    const { world } = fixture;
    const refused = await world.call('POST', `/organizations/${ORG}/policies`, { body: policyBody('p-native', { kind: 'native', 'enforcement-level': 'advisory' }) });
    assert.equal(refused.status, 422);
    assert.deepEqual(refused.json.errors, [{ status: '422', title: 'invalid attribute', detail: 'Kind is not included in the list', source: { pointer: '/data/attributes/kind' } }]);
    const taken = await world.call('POST', `/organizations/${ORG}/policies`, { body: policyBody('p-sentinel', { kind: 'sentinel', 'enforcement-level': 'advisory' }) });
    assert.equal(taken.status, 200, taken.text);
    assert.equal(taken.json.data.attributes.kind, 'sentinel');
    await world.call('DELETE', `/policies/${taken.json.data.id}`);
  });

  it('--native-kind native is refused with the way out; --native-kind sentinel creates sentinel policies from .sentinel files; a dry run then finds nothing in either setting', async () => {
    const { world } = fixture;
    const dir = await fixture.repo(sentinelRepo());
    const given = await world.cli('--reconcile', dir, ['--native-kind', 'native']);
    assert.equal(given.code, 1, 'a given word is never changed');
    assert.match(given.stdout + given.stderr, /Kind is not included in the list; the API refused the kind "native" and most likely calls the native kind "sentinel": set api\.native-kind: sentinel \(--native-kind sentinel\)/);
    const applied = await world.cli('--reconcile', dir, ['--native-kind', 'sentinel']);
    assert.equal(applied.code, 0, applied.stderr + applied.stdout);
    const live = await world.policies();
    assert.deepEqual(live.map((p) => p.kind).sort(), ['opa', 'sentinel', 'sentinel', 'sentinel']);
    const kinds = await world.call('GET', `/organizations/${ORG}/policies?filter[kind]=sentinel`);
    assert.equal(kinds.json.data.length, 3);
    for (const extra of [['--native-kind', 'sentinel'], []]) {
      const dry = await world.cli('--dry-run', dir, ['--detailed-exitcode', ...extra]);
      assert.equal(dry.code, 0, `reading is lenient whatever the setting: ${dry.stdout}${dry.stderr}`);
    }
  });

  it('under legacy enforce, levels read from <name>.sentinel paths show no drift', async () => {
    const { world } = fixture;
    await world.setBehaviour({ 'legacy-enforce': true });
    try {
      const dir = await fixture.repo({ 'policies/legacy-one.sentinel': 'main = rule { true }\n', 'policies/legacy-one.yaml': 'enforcement-level: soft-mandatory\n' });
      const file = await configFile(fixture, dir, ['legacy-enforce: true', 'native-kind: sentinel']);
      const applied = await configCli(world, file, ['--reconcile']);
      assert.equal(applied.code, 0, applied.stderr + applied.stdout);
      const policy = (await world.policies()).find((p) => p.name === 'legacy-one');
      assert.equal(policy?.['enforcement-level'], 'soft-mandatory');
      const raw = await world.call('GET', `/policies/${policy?.id}`);
      assert.deepEqual(raw.json.data.attributes.enforce, [{ path: 'legacy-one.sentinel', mode: 'soft-mandatory' }]);
      const dry = await configCli(world, file, ['--dry-run', '--detailed-exitcode']);
      assert.equal(dry.code, 0, dry.stdout + dry.stderr);
    } finally {
      await world.setBehaviour({ 'legacy-enforce': false });
    }
  });

  it('a policy of a kind the tool does not know is named once, never updated, replaced or deleted', async () => {
    const { world } = fixture;
    const made = await world.call('POST', `/organizations/${ORG}/policies`, { body: policyBody('beta-policy', { kind: 'tfpolicy', description: 'made elsewhere', 'enforcement-level': 'advisory' }) });
    assert.equal(made.status, 200, made.text);
    const dir = await fixture.repo({ 'policies/only.sentinel': 'main = rule { true }\n' });
    const file = await configFile(fixture, dir, ['native-kind: sentinel'], ['ownership: organization', 'prune: true', 'max-deletes: 100']);
    const dry = await configCli(world, file, ['--dry-run', '--output', 'json']);
    assert.equal(dry.code, 0, dry.stderr + dry.stdout);
    const plan = JSON.parse(dry.stdout);
    const changes = plan.sources[0].changes as Array<{ name: string; action: string }>;
    assert.equal(changes.some((c) => c.name === 'beta-policy'), false, JSON.stringify(changes));
    const warnings = (plan.sources[0].warnings as string[]).filter((w) => w.includes('beta-policy'));
    assert.deepEqual(warnings, ['policies of a kind this tool does not manage, left as they are: beta-policy (tfpolicy)']);
    const applied = await configCli(world, file, ['--reconcile', '--force']);
    assert.equal(applied.code, 0, applied.stderr + applied.stdout);
    assert.ok((await world.policies()).some((p) => p.name === 'beta-policy' && p.kind === 'tfpolicy'));

    const exported = join(await fixture.repo(), 'exported');
    const exportRun = await runCli(['--export', exported, '--organization', ORG, '--api-url', world.url, '--native-kind', 'sentinel'], { env: { API_TOKEN: world.token, LOG_LEVEL: 'warn' } });
    assert.equal(exportRun.code, 0, exportRun.stderr + exportRun.stdout);
    assert.match(exportRun.stdout, /policy "beta-policy": kind tfpolicy is not one this tool manages/);
    assert.equal(await readFile(join(exported, 'policies/only.sentinel'), 'utf8'), 'main = rule { true }\n');

    const clash = await fixture.repo({ 'policies/beta-policy.sentinel': 'main = rule { true }\n' });
    const refused = await configCli(world, await configFile(fixture, clash, ['native-kind: sentinel']), ['--dry-run', '--output', 'json']);
    assert.equal(refused.code, 1);
    assert.match(JSON.parse(refused.stdout).sources[0].errors.join('\n'), /policy "beta-policy" \(policies\/beta-policy\.sentinel\) exists as a tfpolicy policy/);
  });
});

describe('an API that calls the native kind sentinel, with api.native-kind unset: the word is learned', () => {
  const fixture = useWorld({ nativeKind: 'sentinel' });

  it('with no native-kind set, an empty organization: the first native create is refused, nothing is written, and it is sent again as sentinel, said once', async () => {
    const { world } = fixture;
    const dir = await fixture.repo({ 'policies/learn-a.sentinel': 'main = rule { true }\n', 'policies/learn-b.sentinel': 'main = rule { true }\n' });
    await world.clearRequests();
    const applied = await world.cli('--reconcile', dir, ['--output', 'json']);
    assert.equal(applied.code, 0, applied.stderr + applied.stdout);
    const creates = (await world.requests()).filter((r) => r.method === 'POST');
    assert.equal(creates.filter((r) => r.status === 200).length, 2, JSON.stringify(creates));
    assert.ok(creates.filter((r) => r.status === 422).length >= 1, 'the document\'s word was sent first and refused');
    const said = applied.stderr.split('\n').filter((line) => line.includes('refused the native kind'));
    assert.equal(said.length, 1, applied.stderr);
    assert.match(said[0] ?? '', /sending again as sentinel/);
    const live = (await world.policies()).filter((p) => p.name.startsWith('learn-'));
    assert.deepEqual(live.map((p) => `${p.name}:${p.kind}`).sort(), ['learn-a:sentinel', 'learn-b:sentinel']);
    const dry = await world.cli('--dry-run', dir, ['--detailed-exitcode']);
    assert.equal(dry.code, 0, dry.stdout + dry.stderr);
    for (const p of live) await world.call('DELETE', `/policies/${p.id}`);
  });

  it('with no native-kind set, an organization holding sentinel policies: creates go out as sentinel at once, legacy enforce paths as <name>.sentinel', async () => {
    const { world } = fixture;
    const held = await world.call('POST', `/organizations/${ORG}/policies`, { body: policyBody('held', { kind: 'sentinel', 'enforcement-level': 'advisory' }) });
    assert.equal(held.status, 200, held.text);
    await world.setBehaviour({ 'legacy-enforce': true });
    try {
      const dir = await fixture.repo({ 'policies/learned.sentinel': 'main = rule { true }\n', 'policies/learned.yaml': 'enforcement-level: soft-mandatory\n' });
      const file = await configFile(fixture, dir, ['legacy-enforce: true']);
      await world.clearRequests();
      const applied = await configCli(world, file, ['--reconcile']);
      assert.equal(applied.code, 0, applied.stderr + applied.stdout);
      assert.deepEqual((await world.requests()).filter((r) => r.method === 'POST').map((r) => r.status), [200], 'no refused create');
      assert.doesNotMatch(applied.stderr, /refused the native kind/);
      const policy = (await world.policies()).find((p) => p.name === 'learned');
      assert.equal(policy?.kind, 'sentinel');
      assert.equal(policy?.['enforcement-level'], 'soft-mandatory', 'a path other than <name>.sentinel would mean hard-mandatory');
      const raw = await world.call('GET', `/policies/${policy?.id}`);
      assert.deepEqual(raw.json.data.attributes.enforce, [{ path: 'learned.sentinel', mode: 'soft-mandatory' }]);
      const dry = await configCli(world, file, ['--dry-run', '--detailed-exitcode']);
      assert.equal(dry.code, 0, dry.stdout + dry.stderr);
      await world.call('DELETE', `/policies/${policy?.id}`);
    } finally {
      await world.setBehaviour({ 'legacy-enforce': false });
      await world.call('DELETE', `/policies/${held.json.data.id}`);
    }
  });

  it('with no native-kind set, an empty organization under legacy enforce: the create sent again carries <name>.sentinel', async () => {
    const { world } = fixture;
    await world.setBehaviour({ 'legacy-enforce': true });
    try {
      const dir = await fixture.repo({ 'policies/legacy-learn.sentinel': 'main = rule { true }\n', 'policies/legacy-learn.yaml': 'enforcement-level: advisory\n' });
      const file = await configFile(fixture, dir, ['legacy-enforce: true']);
      const applied = await configCli(world, file, ['--reconcile']);
      assert.equal(applied.code, 0, applied.stderr + applied.stdout);
      const policy = (await world.policies()).find((p) => p.name === 'legacy-learn');
      assert.equal(policy?.['enforcement-level'], 'advisory');
      const raw = await world.call('GET', `/policies/${policy?.id}`);
      assert.deepEqual(raw.json.data.attributes.enforce, [{ path: 'legacy-learn.sentinel', mode: 'advisory' }]);
      await world.call('DELETE', `/policies/${policy?.id}`);
    } finally {
      await world.setBehaviour({ 'legacy-enforce': false });
    }
  });
  it('a plan saved with native-kind unset records no word, and its apply learns it again; the export names files in the learned word', async () => {
    const { world } = fixture;
    const dir = await fixture.repo({ 'policies/saved-learn.sentinel': 'main = rule { true }\n' });
    const file = join(await fixture.repo(), 'plan.json');
    const made = await world.cli('--dry-run', dir, ['--out', file]);
    assert.equal(made.code, 0, made.stderr + made.stdout);
    const saved = JSON.parse(await readFile(file, 'utf8'));
    assert.equal(saved.run.native_kind, undefined);
    const applied = await world.cli('--reconcile', dir, ['--plan', file]);
    assert.equal(applied.code, 0, applied.stderr + applied.stdout);
    assert.equal((await world.policies()).find((p) => p.name === 'saved-learn')?.kind, 'sentinel');
    const exported = join(await fixture.repo(), 'exported');
    const exportRun = await runCli(['--export', exported, '--organization', ORG, '--api-url', world.url], { env: { API_TOKEN: world.token, LOG_LEVEL: 'warn' } });
    assert.equal(exportRun.code, 0, exportRun.stderr + exportRun.stdout);
    assert.equal(await readFile(join(exported, 'policies/saved-learn.sentinel'), 'utf8'), 'main = rule { true }\n', 'the export names files in the word learned');
  });
});

describe('agent statuses the tool does not know', () => {
  const OLD = '2026-01-01T00:00:00.000Z';
  const fixture = useWorld({
    organizations: [{
      name: ORG, maxAgentPools: 1, workspaces: [], policySets: [],
      agentPools: [{ name: 'build', agents: [{ name: 'gone', status: 'exited', lastPingAt: OLD }] }],
    }],
  });

  it('are kept as sent and never match a clean-up rule, unknown included', async () => {
    const { world } = fixture;
    const pool = (await world.call('GET', `/organizations/${ORG}/agent-pools`)).json.data[0].id as string;
    await world.addAgents(pool, [{ name: 'drains', status: 'draining', 'last-ping-at': OLD }]);
    const dir = await fixture.repo({ 'agent-pools/build.yaml': 'agent-cleanup: { statuses: [exited, errored, unknown], after: 1h }\n' });
    const dry = await world.cli('--dry-run', dir, ['--output', 'json']);
    assert.equal(dry.code, 0, dry.stderr + dry.stdout);
    const agents = (JSON.parse(dry.stdout).sources[0].changes as Array<{ resource: string; reason: string }>).filter((c) => c.resource === 'agent');
    assert.equal(agents.length, 1, JSON.stringify(agents));
    assert.match(agents[0]!.reason, /exited/);
  });
});
