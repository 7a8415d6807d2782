/** Errors that say what to check: the organization, the API URL and its scheme, the listen address, the port. */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:net';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { runCli, spawnCli } from './helpers/cli.js';
import { useWorld } from './helpers/world.js';

const POLICY = { 'policies/a.native': 'main = rule { true }\n' };

describe('messages that say what to check', () => {
  const fixture = useWorld();

  async function dryRun(organization: string, apiUrl: string, logLevel = 'warn') {
    const dir = await fixture.repo(POLICY);
    return runCli(['--dry-run', '--source-dir', dir, '--organization', organization, '--api-url', apiUrl], {
      env: { API_TOKEN: fixture.world.token, LOG_LEVEL: logLevel, STATE_DIR: fixture.world.stateDir },
    });
  }

  it('a 404 on the organization\'s list: the organization is not found, or the token cannot see it', async () => {
    const run = await dryRun('nope-org', fixture.world.url, 'debug');
    assert.equal(run.code, 1);
    assert.match(run.stdout, /reading the live state of organization nope-org failed: organization "nope-org" not found, or the token cannot see it \(GET \/organizations\/nope-org\/policies\?page\[number\]=1&page\[size\]=100 failed: 404/);
    assert.doesNotMatch(run.stdout, /does not end in \/api\/v2/, 'no URL hint when the URL is right');
    assert.doesNotMatch(`${run.stdout}${run.stderr}`, /%5B|%5D/, 'no percent-encoded query string in messages or logs');
  });

  it('an API URL without /api/v2: the 404 says so and names where to set it', async () => {
    const run = await dryRun('example-org', fixture.world.emu.origin);
    assert.equal(run.code, 1);
    assert.ok(
      run.stdout.includes(`the API URL ${fixture.world.emu.origin} does not end in /api/v2, where the API's endpoints live (e.g. ${fixture.world.emu.origin}/api/v2): check --api-url, API_BASE_URL or api.url`),
      run.stdout,
    );
  });

  it('an --api-url without a scheme names the flag, before any request', async () => {
    await fixture.world.clearRequests();
    const bare = fixture.world.url.replace(/^http:\/\//, '');
    const run = await dryRun('example-org', bare);
    assert.equal(run.code, 1);
    assert.equal(run.stderr, `error: --api-url "${bare}" is not an http(s) URL: give it with its scheme: https://${bare} or http://${bare}\n`);
    assert.deepEqual(await fixture.world.requests(), []);
  });
});

describe('an address in use', () => {
  let busy: Server;
  let port: number;
  before(async () => {
    busy = createServer();
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
    port = (busy.address() as AddressInfo).port;
  });
  after(() => new Promise<void>((resolve) => busy.close(() => resolve())));

  it('the daemon names LISTEN_ADDRESS and exits 1', async () => {
    const run = await spawnCli([], { env: { LISTEN_ADDRESS: `127.0.0.1:${port}`, LOG_LEVEL: 'error' } });
    assert.equal(run.code, 1);
    assert.match(run.stderr, new RegExp(`error: cannot listen on 127\\.0\\.0\\.1:${port}: the address is in use; set LISTEN_ADDRESS \\(or listen: in the config\\) to a free host:port\\n$`));
  });

  it('the emulator names --port', async () => {
    const run = await runCli(['--emulator', '--port', String(port)], { env: { LOG_LEVEL: 'error' } });
    assert.deepEqual([run.code, run.stderr], [1, `error: port ${port} is in use: pass another --port (0 picks a free one)\n`]);
  });
});
