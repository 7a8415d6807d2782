/**
 * A saved plan's `run` block is a record, never authority: the API and every setting that decides what may be
 * written come from the applying side (flags, environment, --config). A plan whose record points the token
 * elsewhere, widens ownership or prune, or names another organization is refused before any request.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFile, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { spawnCli } from './helpers/cli.js';
import { ORG } from './helpers/emulator.js';
import { writeTree } from './helpers/temp-tree.js';
import { useWorld, type World } from './helpers/world.js';

type Json = Record<string, any>;

/** A second API on loopback that counts every request it sees (and answers none usefully). */
class CountingServer {
  requests = 0;
  private server: Server = createServer((request, response) => {
    this.requests += 1;
    request.resume();
    response.writeHead(500).end();
  });

  async start(): Promise<string> {
    this.server.listen(0, '127.0.0.1');
    await once(this.server, 'listening');
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/api/v2`;
  }

  async close(): Promise<void> {
    this.server.close();
    await once(this.server, 'close');
  }
}

async function readPlan(file: string): Promise<Json> {
  return JSON.parse(await readFile(file, 'utf8')) as Json;
}

describe('a saved plan takes no authority from its file', () => {
  const fixture = useWorld();
  const elsewhere = new CountingServer();
  let elsewhereUrl = '';
  before(async () => {
    elsewhereUrl = await elsewhere.start();
  });
  after(() => elsewhere.close());

  /** A saved plan of `source` over a repo that creates one policy. */
  async function planned(source: string): Promise<{ dir: string; file: string; document: Json }> {
    const { world } = fixture;
    const dir = await fixture.repo({ [`policies/${source}.native`]: 'main = rule { true }\n' });
    const file = path.join(await fixture.repo({}), 'plan.json');
    const made = await world.cli('--dry-run', dir, ['--source', source, '--out', file]);
    assert.equal(made.code, 0, made.stdout + made.stderr);
    return { dir, file, document: await readPlan(file) };
  }

  /** `--reconcile --plan FILE` alone, the form older docs recommended, from a folder with no config file. */
  async function planAlone(world: World, file: string, env: Record<string, string> = {}) {
    return spawnCli(['--reconcile', '--plan', file], { cwd: path.dirname(file), env: { API_TOKEN: world.token, LOG_LEVEL: 'warn', STATE_DIR: world.stateDir, ...env } });
  }

  it('never sends the token to the API the file names: refused with no request, naming both APIs', async () => {
    const { world } = fixture;
    const { dir, file, document } = await planned('origin');
    document['run']['api_url'] = elsewhereUrl;
    await writeFile(file, JSON.stringify(document));
    await world.clearRequests();

    const alone = await planAlone(world, file);
    assert.equal(elsewhere.requests, 0, `the API named by the file saw no request\n${alone.stdout}${alone.stderr}`);
    assert.equal(alone.code, 1, alone.stdout + alone.stderr);
    assert.match(alone.stderr, new RegExp(`made against the API ${elsewhereUrl.replace(/[.]/g, '\\.')}, and this run names no API`));

    const named = await world.cli('--reconcile', dir, ['--source', 'origin', '--plan', file]);
    assert.equal(named.code, 1, named.stdout + named.stderr);
    assert.ok(named.stderr.includes(`made against the API ${elsewhereUrl}, but this run's API is ${world.url}`), named.stderr);

    assert.equal(elsewhere.requests, 0, 'the API named by the file saw no request');
    assert.deepEqual(await world.requests(), [], 'nor did the API of this run');
  });

  it('refuses a run block widened to own the organization, adopt and prune, with a delete of another source\'s policy', async () => {
    const { world } = fixture;
    const dirB = await fixture.repo({ 'policies/wb-one.native': 'main = rule { "b" == "b" }\n' });
    assert.equal((await world.cli('--reconcile', dirB, ['--source', 'wb'])).code, 0);
    // Source wb's own pruning plan holds the delete of wb-one with its true live state.
    await writeTree(dirB, { 'policies/wb-two.native': 'main = rule { 2 == 2 }\n' });
    await unlink(path.join(dirB, 'policies/wb-one.native'));
    const theirsFile = path.join(await fixture.repo({}), 'b.json');
    assert.equal((await world.cli('--dry-run', dirB, ['--source', 'wb', '--prune', '--out', theirsFile])).code, 0);
    const deletion = (await readPlan(theirsFile))['sources'][0]['changes'].find((c: Json) => c['action'] === 'delete') as Json;
    assert.ok(deletion, 'the plan of wb deletes wb-one');

    const { dir, file, document } = await planned('wa');
    Object.assign(document['run']['sources'][0], { ownership: 'organization', adopt: true, prune: true, max_deletes: 100 });
    document['sources'][0]['changes'].push(deletion);
    await writeFile(file, JSON.stringify(document));
    await world.clearRequests();

    const alone = await planAlone(world, file);
    assert.ok((await world.policies()).some((p) => p.name === 'wb-one'), `the other source's policy is still there\n${alone.stdout}${alone.stderr}`);
    assert.equal(alone.code, 1, alone.stdout + alone.stderr);
    const named = await world.cli('--reconcile', dir, ['--source', 'wa', '--plan', file]);
    assert.equal(named.code, 1, named.stdout + named.stderr);
    for (const difference of [
      'ownership is "organization" in the plan but "marker" in this run',
      'adopt (--adopt) is true in the plan but false in this run',
      'prune (--prune) is true in the plan but false in this run',
      'max-deletes is 100 in the plan but 10 in this run',
    ]) {
      assert.ok(named.stderr.includes(`source "wa": ${difference}`), `${difference}\n${named.stderr}`);
    }
    assert.deepEqual(await world.requests(), [], 'refused before any request');
    assert.ok((await world.policies()).some((p) => p.name === 'wb-one'), 'the other source\'s policy is still there');
  });

  it('refuses a plan whose organization was changed, before any request', async () => {
    const { world } = fixture;
    const { dir, file, document } = await planned('moved-org');
    document['sources'][0]['organization'] = 'other-org';
    document['run']['sources'][0]['organization'] = 'other-org';
    await writeFile(file, JSON.stringify(document));
    await world.clearRequests();

    const alone = await planAlone(world, file, { API_BASE_URL: world.url });
    assert.deepEqual((await world.requests()).map((r) => `${r.method} ${r.path}`), [], `no request for organization other-org\n${alone.stdout}${alone.stderr}`);
    assert.equal(alone.code, 1, alone.stdout + alone.stderr);
    assert.match(alone.stderr, /names the API .* but no source/);
    const named = await world.cli('--reconcile', dir, ['--source', 'moved-org', '--plan', file]);
    assert.equal(named.code, 1, named.stdout + named.stderr);
    assert.match(named.stderr, new RegExp(`is for organization "other-org", but source "moved-org" syncs organization "${ORG}"`));
    assert.deepEqual(await world.requests(), [], 'refused before any request');
  });

  it('refuses a plan applied with other flags (--force, --allow-empty) than it was made with, and applies it with the same', async () => {
    const { world } = fixture;
    const { dir, file } = await planned('same-flags');
    const forced = await world.cli('--reconcile', dir, ['--source', 'same-flags', '--plan', file, '--force', '--allow-empty']);
    assert.equal(forced.code, 1, forced.stdout + forced.stderr);
    assert.match(forced.stderr, /source "same-flags": force \(--force\) is false in the plan but true in this run/);
    assert.match(forced.stderr, /source "same-flags": allow-empty \(--allow-empty\) is false in the plan but true in this run/);
    const same = await world.cli('--reconcile', dir, ['--source', 'same-flags', '--plan', file]);
    assert.equal(same.code, 0, same.stdout + same.stderr);
    assert.match(same.stdout, /Apply complete! Resources: 1 created/);
  });

  it('with --config, compares the plan with the config file\'s API and settings', async () => {
    const { world } = fixture;
    const { dir, file } = await planned('configured');
    const configFile = async (extra: string) => {
      const name = path.join(await fixture.repo({}), 'config.yaml');
      await writeFile(name, `api: { url: "${world.url}" }\nsources:\n  - { name: configured, organization: ${ORG}, path: "${dir}"${extra} }\n`);
      return name;
    };
    const env = { API_TOKEN: world.token, LOG_LEVEL: 'warn', STATE_DIR: world.stateDir };
    await world.clearRequests();
    const widened = await spawnCli(['--reconcile', '--plan', file, '--config', await configFile(', prune: true, ownership: organization')], { env });
    assert.equal(widened.code, 1, widened.stdout + widened.stderr);
    assert.match(widened.stderr, /source "configured": ownership is "marker" in the plan but "organization" in this run/);
    assert.match(widened.stderr, /source "configured": prune \(--prune\) is false in the plan but true in this run/);
    assert.deepEqual(await world.requests(), [], 'refused before any request');
    const same = await spawnCli(['--reconcile', '--plan', file, '--config', await configFile('')], { env });
    assert.equal(same.code, 0, same.stdout + same.stderr);
    assert.match(same.stdout, /Apply complete! Resources: 1 created/);
  });
});
