import assert from 'node:assert/strict';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createCodeCache, MAX_SET_CONTENTS } from '../src/live/code-cache.js';
import { openCodeCacheStore } from '../src/live/code-cache-file.js';
import { stateSeal, withoutSeal } from '../src/state-seal.js';
import { captureLogs } from './helpers/logs.js';
import { smallRepo, REQUIRE_TAGS } from './helpers/repos.js';
import { ORG } from './helpers/emulator.js';
import { useWorld, type World } from './helpers/world.js';

const SEAL = stateSeal('cache-test-token', 'http://127.0.0.1/api/v2');
const DIGEST_A = 'a'.repeat(64);
const DIGEST_B = 'b'.repeat(64);

describe('the code cache in memory', () => {
  it('answers for the cached updated-at only, and a set replaces the entry of that policy', () => {
    const cache = createCodeCache();
    cache.set('pol-1', 't1', DIGEST_A);
    assert.equal(cache.get('pol-1', 't1'), DIGEST_A);
    assert.equal(cache.get('pol-1', 't2'), undefined, 'a changed updated-at misses');
    cache.set('pol-1', 't2', DIGEST_B);
    assert.equal(cache.get('pol-1', 't1'), undefined);
    assert.equal(cache.get('pol-1', 't2'), DIGEST_B);
    assert.equal(cache.size, 1);
  });

  it('forgets policies that no longer exist, and past its bound the entries set longest ago', () => {
    const cache = createCodeCache([], 3);
    for (const id of ['pol-1', 'pol-2', 'pol-3']) cache.set(id, 't', DIGEST_A);
    cache.set('pol-1', 't2', DIGEST_A);
    cache.set('pol-4', 't', DIGEST_A);
    assert.deepEqual([...cache.entries()].map(([id]) => id), ['pol-3', 'pol-1', 'pol-4']);
    cache.retain(['pol-1', 'pol-9']);
    assert.deepEqual([...cache.entries()].map(([id]) => id), ['pol-1']);
  });

  it('holds 20,000 policies', () => {
    const cache = createCodeCache();
    for (let i = 0; i < 20_000; i += 1) cache.set(`pol-${i}`, 't', DIGEST_A);
    for (let i = 0; i < 20_000; i += 1) cache.set(`pol-${i}`, 't2', DIGEST_B);
    assert.equal(cache.size, 20_000);
    assert.equal(cache.get('pol-19999', 't2'), DIGEST_B);
  });
});

describe('the code cache file', () => {
  let stateDir: string;
  before(async () => {
    stateDir = await mkdtemp(path.join(tmpdir(), 'pps-cache-'));
  });
  after(() => rm(stateDir, { recursive: true, force: true }));

  async function cacheFile(): Promise<string> {
    const names = (await readdir(path.join(stateDir, '.code-cache'))).filter((n) => n.startsWith('acme-') && n.endsWith('.json'));
    assert.equal(names.length, 1, names.join(', '));
    return path.join(stateDir, '.code-cache', names[0]!);
  }

  it('keeps what one run learnt for the next', async () => {
    const { logger } = captureLogs();
    const first = openCodeCacheStore({ stateDir, logger, seal: SEAL, persist: true });
    (await first.forOrganization('acme')).set('pol-1', 't1', DIGEST_A);
    await first.save();
    const second = openCodeCacheStore({ stateDir, logger, seal: SEAL, persist: true });
    assert.equal((await second.forOrganization('acme')).get('pol-1', 't1'), DIGEST_A);
    assert.equal((await second.forOrganization('other')).get('pol-1', 't1'), undefined, 'one file per organization');
  });

  it('keeps the files of each set content seen, the 32 seen last; seeing one again changes nothing to save; a file without them still reads', async () => {
    const { logger } = captureLogs();
    const first = openCodeCacheStore({ stateDir, logger, seal: SEAL, persist: true });
    const cache = await first.forOrganization('sets');
    const files = [{ path: 'sentinel.hcl', sha256: DIGEST_A }, { path: 'policies/a.sentinel', sha256: DIGEST_B }];
    cache.rememberSetFiles(DIGEST_A, files);
    for (let i = 0; i < MAX_SET_CONTENTS; i += 1) cache.rememberSetFiles(i.toString(16).padStart(64, '0'), [{ path: `p${i}.sentinel`, sha256: DIGEST_B }]);
    assert.equal(cache.setFiles(DIGEST_A), undefined, 'the content seen longest ago is forgotten past the bound');
    cache.rememberSetFiles(DIGEST_A, files);
    await first.save();
    const revision = cache.revision;
    cache.rememberSetFiles(DIGEST_A, files);
    assert.equal(cache.revision, revision, 'a content seen again is no change: an idle daemon writes nothing');

    const second = await openCodeCacheStore({ stateDir, logger, seal: SEAL, persist: true }).forOrganization('sets');
    assert.deepEqual(second.setFiles(DIGEST_A), files);
    assert.equal([...second.setContents()].length, MAX_SET_CONTENTS);

    const file = path.join(stateDir, '.code-cache', (await readdir(path.join(stateDir, '.code-cache'))).find((n) => n.startsWith('sets-'))!);
    const old = JSON.parse(withoutSeal(await readFile(file, 'utf8'))) as Record<string, unknown>;
    delete old['sets'];
    await writeFile(file, SEAL.seal({ purpose: 'code cache', owner: 'sets' }, JSON.stringify(old)));
    const { logger: quiet, lines } = captureLogs();
    const older = await openCodeCacheStore({ stateDir, logger: quiet, seal: SEAL, persist: true }).forOrganization('sets');
    assert.equal(older.setFiles(DIGEST_A), undefined);
    assert.deepEqual(lines, [], 'a file written before sets were kept is no damage');
  });

  for (const [what, damage] of [
    ['a corrupt file', () => 'not json at all {'],
    ['a truncated file', (text: string) => text.slice(0, Math.floor(text.length / 2))],
    ['a file of another format', () => JSON.stringify({ format: 'something else', version: 1, organization: 'acme', entries: [] })],
    ['a file of another version', (text: string) => text.replace('"version":1', '"version":99')],
    ['a file with a bad entry', (text: string) => text.replace(DIGEST_A, 'not-a-digest')],
    ['a file with a bad set content', (text: string) => text.replace('"sets":[', `"sets":[["${DIGEST_A}",[["../escape", "not-a-digest"]]]`)],
    // Another organization's file copied over this one (its ids could name other policies here).
    ['a misplaced file (another organization\'s)', (text: string) => text.replace('"organization":"acme"', '"organization":"acme-other"')],
  ] as const) {
    it(`${what} is ignored with one warning and rebuilt`, async () => {
      const seed = openCodeCacheStore({ stateDir, logger: captureLogs().logger, seal: SEAL, persist: true });
      (await seed.forOrganization('acme')).set('pol-1', 't1', DIGEST_A);
      await seed.save();
      const file = await cacheFile();
      // Damaged within its seal: the entries' own checks refuse it.
      await writeFile(file, SEAL.seal({ purpose: 'code cache', owner: 'acme' }, damage(withoutSeal(await readFile(file, 'utf8')))));

      const { logger, lines } = captureLogs();
      const store = openCodeCacheStore({ stateDir, logger, seal: SEAL, persist: true });
      const cache = await store.forOrganization('acme');
      await store.forOrganization('acme');
      assert.equal(cache.size, 0, 'nothing of the damaged file is used');
      assert.equal(lines.filter((l) => l.includes('code cache')).length, 1, lines.join(''));
      cache.set('pol-2', 't2', DIGEST_B);
      await store.save();

      const { logger: quiet, lines: after } = captureLogs();
      const rebuilt = await openCodeCacheStore({ stateDir, logger: quiet, seal: SEAL, persist: true }).forOrganization('acme');
      assert.equal(rebuilt.get('pol-2', 't2'), DIGEST_B);
      assert.deepEqual(after, []);
    });
  }

  for (const [what, forge] of [
    ['a well-formed file with no seal (committed by a repo, or an older version\'s)', (text: string) => withoutSeal(text)],
    ['a file sealed with another token', (text: string) => stateSeal('another-token', 'http://127.0.0.1/api/v2').seal({ purpose: 'code cache', owner: 'acme' }, withoutSeal(text))],
    ['a file sealed for another API', (text: string) => stateSeal('cache-test-token', 'https://elsewhere.example/api/v2').seal({ purpose: 'code cache', owner: 'acme' }, withoutSeal(text))],
    ['a file sealed for another organization', (text: string) => SEAL.seal({ purpose: 'code cache', owner: 'acme-other' }, withoutSeal(text))],
    ['a file sealed as another kind of state', (text: string) => SEAL.seal({ purpose: 'evidence cache', owner: 'acme' }, withoutSeal(text))],
    ['a sealed file whose entry was changed', (text: string) => text.replace(DIGEST_A, DIGEST_B)],
  ] as const) {
    it(`${what} is a miss, with one warning`, async () => {
      const seed = openCodeCacheStore({ stateDir, logger: captureLogs().logger, seal: SEAL, persist: true });
      (await seed.forOrganization('acme')).set('pol-1', 't1', DIGEST_A);
      await seed.save();
      const file = await cacheFile();
      await writeFile(file, forge(await readFile(file, 'utf8')));
      const { logger, lines } = captureLogs();
      const cache = await openCodeCacheStore({ stateDir, logger, seal: SEAL, persist: true }).forOrganization('acme');
      assert.equal(cache.get('pol-1', 't1'), undefined, 'nothing of the file is used');
      assert.equal(cache.size, 0);
      assert.deepEqual(lines.filter((l) => l.includes('not written by this tool')).length, 1, lines.join(''));
    });
  }

  it('two writers at once leave a whole file, and no temporary file behind', async () => {
    const stores = Array.from({ length: 8 }, () => openCodeCacheStore({ stateDir, logger: captureLogs().logger, seal: SEAL, persist: true }));
    await Promise.all(stores.map(async (store, n) => {
      const cache = await store.forOrganization('busy');
      for (let i = 0; i < 20_000 - n * 2_000; i += 1) cache.set(`pol-${n}-${i}`, 't', DIGEST_A);
    }));
    await Promise.all(stores.map((store) => store.save()));
    const { logger, lines } = captureLogs();
    const read = await openCodeCacheStore({ stateDir, logger, seal: SEAL, persist: true }).forOrganization('busy');
    assert.deepEqual(lines, [], 'the file is whole');
    assert.ok(stores.some((_, n) => read.size === 20_000 - n * 2_000), 'the last writer wins whole');
    assert.deepEqual((await readdir(path.join(stateDir, '.code-cache'))).filter((n) => n.endsWith('.tmp')), []);
  });

  it('without persistence nothing is read or written', async () => {
    const file = await cacheFile();
    const before = await readFile(file, 'utf8');
    const store = openCodeCacheStore({ stateDir, logger: captureLogs().logger, seal: SEAL, persist: false });
    const cache = await store.forOrganization('acme');
    assert.equal(cache.size, 0);
    cache.set('pol-new', 't', DIGEST_A);
    await store.save();
    assert.equal(await readFile(file, 'utf8'), before);
  });
});

describe('one-shot runs share the code cache in the state dir', () => {
  const fixture = useWorld();
  let world: World;
  let dir: string;
  before(async () => {
    world = fixture.world;
    dir = await fixture.repo(smallRepo());
  });

  const downloads = async () => (await world.requests()).filter((r) => r.method === 'GET' && r.path.endsWith('/download'));

  it('after an apply, the next pass needs the list pages only', async () => {
    const applied = await world.cli('--reconcile', dir);
    assert.equal(applied.code, 0, applied.stderr + applied.stdout);
    await world.clearRequests();
    const run = await world.cli('--dry-run', dir, ['--detailed-exitcode']);
    assert.equal(run.code, 0, run.stderr + run.stdout);
    const requests = await world.requests();
    // The pool's access list is read against the organization's workspaces (a name before an id): one more list.
    assert.deepEqual(requests.map((r) => `${r.method} ${r.path.split('?')[0]}`).sort(), [
      `GET /organizations/${ORG}/agent-pools`,
      `GET /organizations/${ORG}/policies`,
      `GET /organizations/${ORG}/workspaces`,
    ]);
  });

  it('a policy whose updated-at changed is downloaded again, and its drift is shown', async () => {
    const list = await world.call('GET', `/organizations/${ORG}/policies`);
    const policy = (list.json as { data: Array<{ id: string; attributes: { name: string } }> }).data.find((p) => p.attributes.name === 'require-tags')!;
    await world.call('PUT', `/policies/${policy.id}/upload`, { raw: `${REQUIRE_TAGS}# edited by hand\n`, contentType: 'application/octet-stream' });
    await world.clearRequests();
    const run = await world.cli('--dry-run', dir, ['--detailed-exitcode']);
    assert.equal(run.code, 2, run.stderr + run.stdout);
    assert.match(run.stdout, /-# edited by hand/);
    assert.deepEqual((await downloads()).map((r) => r.path), [`/policies/${policy.id}/download`]);
  });

  it('--no-cache downloads every declared policy with code, and leaves the cache as it was', async () => {
    const files = path.join(world.stateDir, '.code-cache');
    const [name] = (await readdir(files)).filter((n) => n.endsWith('.json'));
    const before = await readFile(path.join(files, name!), 'utf8');
    await world.clearRequests();
    const run = await world.cli('--dry-run', dir, ['--no-cache']);
    assert.equal(run.code, 0, run.stderr);
    assert.equal((await downloads()).length, 4);
    assert.equal(await readFile(path.join(files, name!), 'utf8'), before);
  });

  it('--state-dir wins over STATE_DIR; a corrupt file there costs one warning and the downloads, never the plan', async () => {
    const other = await mkdtemp(path.join(tmpdir(), 'pps-state-flag-'));
    try {
      await world.cli('--dry-run', dir, ['--state-dir', other]);
      const files = path.join(other, '.code-cache');
      const [name] = await readdir(files);
      await writeFile(path.join(files, name!), '{"format":"policy-pool-sync code cache","version":1,"entr');
      await world.clearRequests();
      const run = await world.cli('--dry-run', dir, ['--state-dir', other, '--detailed-exitcode']);
      assert.equal(run.code, 2, 'the hand edit is still drift');
      assert.equal(run.stderr.split('\n').filter((l) => l.includes('code cache')).length, 1, run.stderr);
      assert.equal((await downloads()).length, 4);
    } finally {
      await rm(other, { recursive: true, force: true });
    }
  });
});
