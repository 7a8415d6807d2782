/**
 * The version a versioned policy set enforces is part of its declared state: the marker records the version this
 * source made ready, and a set whose current version is another (uploaded by hand, through the API) is drift, which
 * the next reconcile uploads again. The poll of a new version runs on the pass's clock: its back-off and its timeout
 * on a virtual clock, and a stop (SIGINT) ends it at once.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ApiClient } from '../src/api/client.js';
import type { SourceConfig } from '../src/config/types.js';
import { silentLogger } from '../src/logger.js';
import { runPass } from '../src/reconcile.js';
import { ORG, WORKSPACES } from './helpers/emulator.js';
import { tarGz } from './helpers/tar-gz.js';
import { VirtualClock } from './helpers/virtual-clock.js';
import { waitFor } from './helpers/wait.js';
import { useWorld, type World } from './helpers/world.js';

/** A versioned set folder holding one hard-mandatory policy. */
const folder = (name: string) => ({
  [`policy-sets/${name}/sentinel.hcl`]: 'policy "strict" {\n  source = "./strict.sentinel"\n  enforcement_level = "hard-mandatory"\n}\n',
  [`policy-sets/${name}/strict.sentinel`]: 'main = rule { false }\n',
});

const SOURCE: SourceConfig = {
  name: 'main', organization: ORG, path: null, git: null, schedule: '*/5 * * * *', prune: false, ownership: 'marker',
  maxDeletes: 10, allowEmpty: false, maxAgentPools: 1, passTimeoutSeconds: 600, adopt: false,
};

interface SetDoc { id: string; attributes: { name: string; description: string | null }; relationships: Record<string, { data: { id: string } | null }> }

async function liveSet(world: World, name: string): Promise<SetDoc> {
  const sets = (await world.call('GET', `/organizations/${ORG}/policy-sets?include=current_version`)).json as { data: SetDoc[] };
  const set = sets.data.find((s) => s.attributes.name === name);
  assert.ok(set, `no set ${name}`);
  return set;
}

/** A version uploaded by hand through the API, as anyone with a token may: read until ready. */
async function uploadByHand(world: World, setId: string, files: Record<string, string>): Promise<string> {
  const made = await world.call('POST', `/policy-sets/${setId}/versions`);
  assert.equal(made.status, 201, made.text);
  const version = (made.json as { data: { id: string; links: { upload: string } } }).data;
  const put = await fetch(version.links.upload, { method: 'PUT', headers: { 'content-type': 'application/octet-stream' }, body: tarGz(files) });
  assert.equal(put.status, 200);
  await waitFor('the version ready', async () => {
    const read = (await world.call('GET', `/policy-set-versions/${version.id}`)).json as { data: { attributes: { status: string } } };
    return read.data.attributes.status === 'ready' ? true : undefined;
  });
  return version.id;
}

describe('the version a set enforces is declared state', () => {
  const fixture = useWorld({ organizations: [{ name: ORG, maxAgentPools: 1, workspaces: WORKSPACES }] });

  it('a version uploaded by hand is drift: the plan names it, exit 2, and the reconcile uploads the folder again', async () => {
    const { world } = fixture;
    const dir = await fixture.repo(folder('enforced'));
    const applied = await world.cli('--reconcile', dir);
    assert.equal(applied.code, 0, applied.stdout + applied.stderr);
    const ours = await liveSet(world, 'enforced');
    const mine = ours.relationships['current-version']?.data?.id;
    assert.ok(mine !== undefined);
    assert.match(ours.attributes.description ?? '', new RegExp(`content=sha256:[0-9a-f]{64} version=${mine} -->$`));

    // A weakened archive, uploaded through the API: the content's digest in the marker still matches the folder.
    const weak = await uploadByHand(world, ours.id, { 'sentinel.hcl': 'policy "strict" {\n  source = "./strict.sentinel"\n  enforcement_level = "advisory"\n}\n', 'strict.sentinel': 'main = rule { true }\n' });
    const plan = await world.cli('--dry-run', dir, ['--detailed-exitcode']);
    assert.equal(plan.code, 2, plan.stdout + plan.stderr);
    assert.match(plan.stdout, new RegExp(`policy-set "enforced" will be updated in-place \\(differs in content; current version ${weak} was not uploaded by this source\\)`));

    const again = await world.cli('--reconcile', dir);
    assert.equal(again.code, 0, again.stdout + again.stderr);
    const fixed = await liveSet(world, 'enforced');
    const current = fixed.relationships['current-version']?.data?.id;
    assert.ok(current !== undefined && current !== weak && current !== mine, 'a new version of the folder is enforced');
    assert.match(fixed.attributes.description ?? '', new RegExp(`version=${current} -->$`));
    const quiet = await world.cli('--dry-run', dir, ['--detailed-exitcode']);
    assert.equal(quiet.code, 0, quiet.stdout + quiet.stderr);
    assert.match(quiet.stdout, /No changes\. The API matches the declared repo\./);
  });

  it('a set made by hand is adopted with a warning, as a policy is', async () => {
    const { world } = fixture;
    const made = await world.call('POST', `/organizations/${ORG}/policy-sets`, { body: { data: { type: 'policy-sets', attributes: { name: 'by-hand', kind: 'native' } } } });
    assert.equal(made.status, 201, made.text);
    const dir = await fixture.repo({ 'policy-sets/by-hand.yaml': 'description: made by hand first\n' });
    const plan = await world.cli('--dry-run', dir);
    assert.equal(plan.code, 0, plan.stdout + plan.stderr);
    assert.match(plan.stdout, /policy set "by-hand" exists without an ownership marker \(made by hand, or before markers\); this source adopts it and marks it as its own\./);
    assert.match(plan.stdout, /policy-set "by-hand" will be updated in-place \(adopt: add ownership marker; differs in description\)/);
  });
});

describe('the version poll runs on the pass\'s clock and signal', () => {
  // A version that reads `ingressing` far longer than any pass waits.
  const fixture = useWorld({ behaviour: { ingestionMs: 1_000_000_000 }, organizations: [{ name: ORG, maxAgentPools: 1, workspaces: WORKSPACES }] });

  const versionReads = async (world: World) => (await world.requests()).filter((r) => r.method === 'GET' && r.path.startsWith('/policy-set-versions/')).length;

  it('backs off from 0.2 s, doubling up to 5 s, and gives up once the next read would pass 10 minutes', async () => {
    const { world } = fixture;
    const dir = await fixture.repo(folder('enforced'));
    const clock = new VirtualClock({ autoAdvance: true });
    const api = new ApiClient({ baseUrl: world.url, token: world.token, logger: silentLogger() });
    await world.clearRequests();
    try {
      const outcome = await runPass({
        source: SOURCE, dir, revision: null, api, logger: silentLogger(), mode: 'apply', now: () => clock.now(), sleep: (ms, signal) => clock.sleep(ms, signal),
      });
      assert.equal(outcome.ok, false);
      assert.match(outcome.results[0]?.message ?? '', /^version polsetver-\S+ of policy set "enforced" is still ingressing after 600 s; the next pass looks again$/);
    } finally {
      await api.close();
    }
    // Reads at 0, 0.2, 0.6, 1.4, 3, 6.2 s, then every 5 s: the 124th, at 596.2 s, is the last before 600 s.
    assert.equal(await versionReads(world), 124);
    assert.equal(clock.now(), 596_200);
  });

  // A wait the stop did not end never ends on this clock: the test's own timeout fails it.
  it('a stop (SIGINT) ends the wait at once: the change fails naming the version, and no time passes', { timeout: 60_000 }, async () => {
    const { world } = fixture;
    const dir = await fixture.repo(folder('waiting'));
    const clock = new VirtualClock();
    const stop = new AbortController();
    const api = new ApiClient({ baseUrl: world.url, token: world.token, logger: silentLogger() });
    await world.clearRequests();
    try {
      const pass = runPass({
        source: SOURCE, dir, revision: null, api, logger: silentLogger(), mode: 'apply', stop: stop.signal,
        now: () => clock.now(), sleep: (ms, signal) => clock.sleep(ms, signal),
      });
      await waitFor('the poll waiting', async () => ((await versionReads(world)) > 0 && clock.pending() > 0 ? true : undefined));
      stop.abort(new Error('stopped by SIGINT'));
      const outcome = await pass;
      assert.equal(outcome.results[0]?.outcome, 'failed');
      assert.match(outcome.results[0]?.message ?? '', /^version polsetver-\S+ of policy set "waiting" was still ingressing when the run stopped \(stopped by SIGINT\); the next pass looks again$/);
    } finally {
      await api.close();
    }
    assert.equal(clock.now(), 0);
    assert.equal(clock.pending(), 0);
  });
});
