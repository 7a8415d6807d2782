/** Errors where CI users look: one line each on stderr, annotations under GitHub Actions, and a quick failure when the API cannot be reached. */
import assert from 'node:assert/strict';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { spawnCli } from './helpers/cli.js';
import { ORG } from './helpers/emulator.js';
import { tempTree } from './helpers/temp-tree.js';
import { useWorld } from './helpers/world.js';

const POLICY = { 'policies/a.native': 'main = rule { true }\n' };

describe('every error on stderr', () => {
  const fixture = useWorld();

  it('a 401 under --output json: one line on stderr that names API_TOKEN and expiry, and an annotation under GitHub Actions', async () => {
    const { world } = fixture;
    const dir = await fixture.repo(POLICY);
    const run = await spawnCli(['--dry-run', '--output', 'json', '--source-dir', dir, '--organization', ORG, '--api-url', world.url], {
      env: { API_TOKEN: 'not-the-token', LOG_LEVEL: 'error', STATE_DIR: world.stateDir, GITHUB_ACTIONS: 'true' },
    });
    assert.equal(run.code, 1);
    const line = /^error: reading the live state of organization example-org failed: the API refused the token \(.*401.*\): check API_TOKEN \(or api\.token-file\), and whether the token has expired$/m;
    assert.match(run.stderr, line);
    assert.match(run.stderr, /^::error::reading the live state of organization example-org failed: the API refused the token .*expired$/m);
    assert.doesNotMatch(run.stderr, /not-the-token/);
  });

  it('a problem of the declared repo names its file and line, in the annotation too', async () => {
    const { world } = fixture;
    const dir = await fixture.repo({ ...POLICY, 'agent-pools/build.yaml': 'organization-scoped: true\nbogus: 1\n' });
    const run = await spawnCli(['--dry-run', '--output', 'markdown', '--source-dir', '.', '--organization', ORG, '--api-url', world.url], {
      env: { API_TOKEN: world.token, LOG_LEVEL: 'error', STATE_DIR: world.stateDir, GITHUB_ACTIONS: 'true' },
      cwd: dir,
    });
    assert.equal(run.code, 1);
    assert.match(run.stderr, /^error: agent-pools\/build\.yaml:2: unknown key "bogus"/m);
    assert.match(run.stderr, /^::error file=agent-pools\/build\.yaml,line=2::unknown key "bogus"/m);
  });

  it('no annotations outside GitHub Actions', async () => {
    const { world } = fixture;
    const dir = await fixture.repo({ ...POLICY, 'agent-pools/build.yaml': 'bogus: 1\n' });
    const run = await world.cli('--validate', dir);
    assert.equal(run.code, 1);
    assert.match(run.stderr, /^error: .*agent-pools\/build\.yaml:1: unknown key "bogus"/m);
    assert.doesNotMatch(run.stderr, /::error/);
  });
});

describe('no API URL', () => {
  it('--export and --dry-run without --api-url say to pass it', async (t) => {
    const out = await tempTree(t, { 'policies/a.native': 'main = rule { true }\n' });
    const env = { API_TOKEN: 'some-token', LOG_LEVEL: 'error', STATE_DIR: out };
    for (const argv of [['--export', join(out, 'exported'), '--organization', ORG], ['--dry-run', '--source-dir', out, '--organization', ORG]]) {
      const run = await spawnCli(argv, { env });
      assert.equal(run.code, 1, argv[0]);
      assert.match(run.stderr, /^error: no API URL was given: pass --api-url URL \(ending in \/api\/v2\) or set API_BASE_URL/m, argv[0]);
    }
  });
});

describe('an API that cannot be reached', () => {
  const fixture = useWorld();

  async function quickFailure(apiUrl: string, expected: RegExp) {
    const dir = await fixture.repo(POLICY);
    const run = await spawnCli(['--dry-run', '--source-dir', dir, '--organization', ORG, '--api-url', apiUrl], {
      env: { API_TOKEN: 'x', LOG_LEVEL: 'warn', STATE_DIR: fixture.world.stateDir },
    });
    assert.equal(run.code, 1, run.stdout + run.stderr);
    assert.match(run.stderr, expected);
    // At once: the first failure ends the run, with no retry (a retry logs a warning and waits out the retry budget).
    assert.doesNotMatch(run.stderr, /retrying|gave up after/);
  }

  it('a host name that does not resolve fails at once, naming the URL', () =>
    quickFailure('http://policies.invalid/api/v2', /^error: cannot reach the API at http:\/\/policies\.invalid\/api\/v2: the host name "policies\.invalid" does not resolve \(ENOTFOUND\); check --api-url, API_BASE_URL or api\.url$/m));

  it('a refused port fails at once', async () => {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await quickFailure(`http://127.0.0.1:${port}/api/v2`, new RegExp(`nothing accepts connections on 127\\.0\\.0\\.1:${port} \\(connection refused\\)`));
  });

  it('https:// against the plain-HTTP emulator fails at once and suggests http://', () =>
    quickFailure(fixture.world.url.replace(/^http:/, 'https:'), /the TLS handshake with 127\.0\.0\.1:\d+ failed .*is the URL http:\/\/ rather than https:\/\/\?/));

  it('a folder that declares nothing is reported as such, before the API is tried', async () => {
    const dir = await fixture.repo(POLICY);
    const run = await spawnCli(['--dry-run', '--source-dir', join(dir, 'policies'), '--organization', ORG, '--api-url', 'http://policies.invalid/api/v2'], {
      env: { API_TOKEN: 'x', LOG_LEVEL: 'error', STATE_DIR: fixture.world.stateDir },
    });
    assert.equal(run.code, 1, run.stdout + run.stderr);
    assert.match(run.stderr, /declares nothing/);
    assert.match(run.stderr, /policies folder itself/);
    assert.doesNotMatch(run.stderr, /cannot reach the API/);
  });

  it('the right URL still works', async () => {
    const run = await fixture.world.cli('--dry-run', join(await fixture.repo(POLICY)), ['--detailed-exitcode']);
    assert.equal(run.code, 2, run.stdout + run.stderr);
  });
});
