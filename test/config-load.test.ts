import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import { configFromFlags, loadConfig, parseConfig, resolveToken } from '../src/config/index.js';
import { UsageError, ValidationError, formatProblem } from '../src/errors.js';
import { tempTree } from './helpers/temp-tree.js';

const MINIMAL = 'sources:\n  - { name: main, organization: acme, path: declared }\n';

async function problemsOf(text: string, env: NodeJS.ProcessEnv = {}): Promise<string[]> {
  const error = await parseConfig(text, 'cfg.yaml', env, { cwd: '/srv' }).then(
    () => assert.fail('expected a ValidationError'),
    (e: unknown) => e,
  );
  assert.ok(error instanceof ValidationError, String(error));
  return error.problems.map(formatProblem);
}

test('every problem of the config is reported at once, each with its key path and line', async () => {
  const text = [
    'api: { url: ftp://api.example.com, rate-limit: fast, concurrency: 0 }', // 1
    'sources:', // 2
    '  - name: platform', // 3
    '    organization: acme', // 4
    '    path: policies', // 5
    '    git: { url: https://git.example.com/p.git }', // 6
    '    schedule: "61 * * * *"', // 7
    '    max-deletes: -1', // 8
    '    colour: blue', // 9
    '  - name: platform', // 10
    '    organization: acme', // 11
    '    path: other', // 12
    '  - name: "has space"', // 13
    '    git: { url: https://git.example.com/q.git, branch: main }', // 14
    '    ownership: everyone', // 15
    'listen: localhost', // 16
    'webhook-secret-env: 1SECRET', // 17
  ].join('\n');
  assert.deepEqual(await problemsOf(text), [
    'cfg.yaml:1: api.url "ftp://api.example.com" is not "embedded" or an http(s) URL',
    'cfg.yaml:1: api.rate-limit must be "auto" or a number above 0, not "fast"',
    'cfg.yaml:1: api.concurrency must be 1 to 64, not 0',
    'cfg.yaml:3: sources[0] has both "path" and "git"; set only one',
    'cfg.yaml:7: sources[0].schedule "61 * * * *" is not a valid cron expression (Invalid value for minute: 61)',
    'cfg.yaml:8: sources[0].max-deletes must be 0 or more, not -1',
    'cfg.yaml:9: unknown key "colour" in sources[0] (allowed: name, organization, path, git, schedule, prune, ownership, max-deletes, allow-empty, adopt, evidence, strict-imports, max-agent-pools, parameters, tokens, pass-timeout, sync-windows)',
    'cfg.yaml:10: sources[1].name "platform" is already used by sources[0]',
    'cfg.yaml:13: sources[2] is missing the key "organization"',
    'cfg.yaml:13: sources[2].name "has space" is not a valid name (letters, digits, - and _)',
    'cfg.yaml:14: unknown key "branch" in sources[2].git (allowed: url, ref, path)',
    'cfg.yaml:15: sources[2].ownership "everyone" is not one of: marker, organization',
    'cfg.yaml:16: listen "localhost" is not host:port (e.g. 127.0.0.1:9090)',
    'cfg.yaml:17: webhook-secret-env "1SECRET" is not an environment variable name (letters, digits and _, not starting with a digit)',
  ]);
});

test('a mistyped config key gets the key that was most likely meant', async () => {
  const text = ['api: { url: embedded, concurency: 4 }', 'sources:', '  - name: a', '    organisation: acme', '    path: p', '    max-delete: 3', ''].join('\n');
  // The lists of allowed keys that follow are checked by the test above.
  assert.deepEqual((await problemsOf(text)).map((p) => p.replace(/ \(allowed: .*\)$/, '')), [
    'cfg.yaml:1: unknown key "concurency" in api: did you mean "concurrency"?',
    'cfg.yaml:3: sources[0] is missing the key "organization"',
    'cfg.yaml:4: unknown key "organisation" in sources[0]: did you mean "organization"?',
    'cfg.yaml:6: unknown key "max-delete" in sources[0]: did you mean "max-deletes"?',
  ]);
});

test('structural problems: no sources, neither path nor git, a YAML syntax error', async () => {
  assert.deepEqual(await problemsOf('listen: 127.0.0.1:9090\n'), ['cfg.yaml:1: the file is missing the key "sources"']);
  assert.deepEqual(await problemsOf('sources:\n  - name: a\n    organization: o\n'), [
    'cfg.yaml:2: sources[0] has neither "path" (a local folder) nor "git" (a repository); set one',
  ]);
  assert.deepEqual(await problemsOf('sources: []\n'), ['cfg.yaml:1: sources must not be empty']);
  const [syntax] = await problemsOf('sources:\n  - name: a\n   organization: [\n');
  assert.match(syntax ?? '', /^cfg\.yaml:\d: YAML syntax error: /);
  assert.deepEqual(await problemsOf('sources:\n  - { name: a, organization: o, path: p }\nlisten: 0.0.0.0:70000\n'), [
    'cfg.yaml:3: listen "0.0.0.0:70000" has a port above 65535',
  ]);
});

test('a config whose YAML aliases expand hugely is refused with an error naming the file', async () => {
  const levels = ['a: &a [x, x, x, x, x, x, x, x, x, x]'];
  for (const [i, name] of ['b', 'c', 'd', 'e', 'f', 'g', 'h'].entries()) levels.push(`${name}: &${name} [${Array(10).fill(`*${'abcdefg'[i]}`).join(', ')}]`);
  const bomb = `${levels.join('\n')}\n${MINIMAL}`;
  const error = await parseConfig(bomb, 'cfg.yaml', {}, { cwd: '/srv' }).then(() => assert.fail('expected a ValidationError'), (e: unknown) => e);
  assert.ok(error instanceof ValidationError, String(error));
  assert.match(error.message, /cfg\.yaml/);
  assert.deepEqual(error.problems.map(formatProblem), [
    'cfg.yaml: YAML error: Excessive alias count indicates a resource exhaustion attack (more than 100 alias uses)',
  ]);
});

test('defaults are filled in and relative paths resolve against the working directory', async () => {
  const config = await parseConfig(
    `${MINIMAL}  - name: remote\n    organization: acme\n    git: { url: "https://git.example.com/p.git" }\n    schedule: "*/2 * * * * *"\n    pass-timeout: 30\n`,
    'cfg.yaml',
    {},
    { cwd: '/srv/app' },
  );
  assert.deepEqual(config.api, { url: 'embedded', tokenFile: null, rateLimit: 'auto', concurrency: 8, legacyEnforce: false, nativeKind: null, retryBudgetSeconds: 60 });
  assert.equal(config.listen, '127.0.0.1:9090');
  assert.equal(config.webhookSecretEnv, 'WEBHOOK_SECRET');
  assert.equal(config.stateDir, '/srv/app/.policy-pool-sync');
  const [local, remote] = config.sources;
  assert.deepEqual(local, {
    name: 'main', organization: 'acme', path: '/srv/app/declared', git: null, schedule: '*/5 * * * *',
    prune: false, ownership: 'marker', maxDeletes: 10, allowEmpty: false, adopt: false, maxAgentPools: 1, passTimeoutSeconds: 600,
  });
  assert.deepEqual(remote?.git, { url: 'https://git.example.com/p.git', ref: 'main', path: '.' });
  assert.equal(remote?.path, null);
  assert.equal(remote?.schedule, '*/2 * * * * *', 'second-level cron is accepted');
  assert.equal(remote?.passTimeoutSeconds, 30);
});

test('every kebab-case key maps to its camelCase field', async () => {
  const text = [
    'api: { url: "https://api.example.com/api/v2", token-file: secrets/token, rate-limit: 12.5, concurrency: 4, legacy-enforce: true, retry-budget: 90 }',
    'sources:',
    '  - { name: a, organization: o, path: /abs/repo, prune: true, ownership: organization, max-deletes: 3, allow-empty: true, adopt: true, max-agent-pools: 2 }',
    'listen: "[::1]:9091"',
    'webhook-secret-env: HOOK_SECRET',
    'state-dir: /var/lib/pps',
    'shutdown-timeout: 5',
  ].join('\n');
  const config = await parseConfig(text, 'cfg.yaml', {}, { cwd: '/srv' });
  assert.deepEqual(config.api, { url: 'https://api.example.com/api/v2', tokenFile: '/srv/secrets/token', rateLimit: 12.5, concurrency: 4, legacyEnforce: true, nativeKind: null, retryBudgetSeconds: 90 });
  assert.equal(config.listen, '[::1]:9091');
  assert.equal(config.webhookSecretEnv, 'HOOK_SECRET');
  assert.equal(config.stateDir, '/var/lib/pps');
  assert.equal(config.shutdownTimeoutSeconds, 5);
  const source = config.sources[0];
  assert.equal(source?.path, '/abs/repo');
  assert.deepEqual([source?.prune, source?.ownership, source?.maxDeletes, source?.allowEmpty, source?.adopt, source?.maxAgentPools], [true, 'organization', 3, true, true, 2]);
});

test('environment overrides: API_BASE_URL, LISTEN_ADDRESS, STATE_DIR, SHUTDOWN_TIMEOUT; bad values are problems', async () => {
  const env = { API_BASE_URL: 'http://127.0.0.1:8080/api/v2', LISTEN_ADDRESS: '0.0.0.0:9090', STATE_DIR: 'state', SHUTDOWN_TIMEOUT: '12' };
  const config = await parseConfig(`api: { url: embedded }\n${MINIMAL}listen: 127.0.0.1:1\n`, 'cfg.yaml', env, { cwd: '/srv' });
  assert.equal(config.api.url, 'http://127.0.0.1:8080/api/v2');
  assert.equal(config.listen, '0.0.0.0:9090');
  assert.equal(config.stateDir, '/srv/state');
  assert.equal(config.shutdownTimeoutSeconds, 12);
  const unchanged = await parseConfig(MINIMAL, 'cfg.yaml', { API_BASE_URL: '', LISTEN_ADDRESS: '' }, { cwd: '/srv' });
  assert.equal(unchanged.api.url, 'embedded', 'an empty variable does not override');
  assert.equal(unchanged.listen, '127.0.0.1:9090');
  assert.equal(unchanged.shutdownTimeoutSeconds, 30);
  assert.deepEqual(await problemsOf(MINIMAL, { LISTEN_ADDRESS: 'everywhere', API_BASE_URL: 'api.example.com', SHUTDOWN_TIMEOUT: 'soon' }), [
    'environment: API_BASE_URL must be "embedded" or an http(s) URL ending in /api/v2',
    'environment: LISTEN_ADDRESS "everywhere" must be host:port, e.g. 0.0.0.0:9090',
    'environment: SHUTDOWN_TIMEOUT "soon" must be a number of seconds, 0 or more',
  ]);
});

test('API_NATIVE_KIND replaces api.native-kind, for flags alone too; another word is a problem', async () => {
  const fromFile = await parseConfig(`api: { native-kind: native }\n${MINIMAL}`, 'cfg.yaml', { API_NATIVE_KIND: 'sentinel' }, { cwd: '/srv' });
  assert.equal(fromFile.api.nativeKind, 'sentinel');
  assert.equal(configFromFlags({ sourceDir: 'repo', organization: 'acme' }, { API_NATIVE_KIND: 'sentinel' }, '/srv').api.nativeKind, 'sentinel');
  assert.equal((await parseConfig(MINIMAL, 'cfg.yaml', { API_NATIVE_KIND: '' }, { cwd: '/srv' })).api.nativeKind, null);
  assert.deepEqual(await problemsOf(MINIMAL, { API_NATIVE_KIND: 'terraform' }), [
    'environment: API_NATIVE_KIND must be native or sentinel (the hosted service\'s word), not "terraform"',
  ]);
});

test('loadConfig reads the file; a missing file is a usage error', async (t) => {
  const dir = await tempTree(t);
  const file = path.join(dir, 'c.yaml');
  await writeFile(file, MINIMAL);
  const config = await loadConfig(file, {}, { cwd: dir });
  assert.equal(config.sources[0]?.path, path.join(dir, 'declared'));
  await assert.rejects(loadConfig(path.join(dir, 'nope.yaml'), {}), (e: unknown) => e instanceof UsageError && /nope\.yaml: no such file/.test(e.message));
});

test('config/default.yaml is valid and is the example in the README', async () => {
  const config = await loadConfig('config/default.yaml', {}, { cwd: '/project' });
  assert.equal(config.api.url, 'embedded');
  assert.equal(config.listen, '127.0.0.1:9090');
  assert.deepEqual(config.sources.map((s) => [s.name, s.organization, s.path, s.schedule, s.prune, s.ownership, s.maxDeletes]), [
    ['example', 'example-org', '/project/examples/declared', '*/1 * * * *', false, 'marker', 10],
  ]);
  const schema = JSON.parse(await readFile('schemas/config.schema.json', 'utf8')) as { $schema: string };
  assert.match(schema.$schema, /json-schema\.org/);
});

test('configFromFlags: one source named default (stable in ownership markers), marker ownership, prune off; URL flag over env', () => {
  const config = configFromFlags({ sourceDir: 'repos/platform-policies', organization: 'acme' }, {}, '/work');
  assert.equal(config.api.url, 'embedded');
  assert.deepEqual(config.sources.map((s) => [s.name, s.organization, s.path, s.git, s.ownership, s.prune]), [
    ['default', 'acme', '/work/repos/platform-policies', null, 'marker', false],
  ]);
  const env = { API_BASE_URL: 'https://env.example.com/api/v2' };
  assert.equal(configFromFlags({ sourceDir: '.', organization: 'acme' }, env, '/work').api.url, 'https://env.example.com/api/v2');
  assert.equal(configFromFlags({ sourceDir: '.', organization: 'acme', apiUrl: 'https://flag.example.com/api/v2' }, env, '/work').api.url, 'https://flag.example.com/api/v2');
});

test('resolveToken: API_TOKEN first, then api.token-file; errors never contain the token', async (t) => {
  const dir = await tempTree(t);
  const tokenFile = path.join(dir, 'token');
  await writeFile(tokenFile, 'file-token-123\n');
  const config = await parseConfig(`api: { token-file: ${tokenFile} }\n${MINIMAL}`, 'cfg.yaml', {}, { cwd: dir });
  assert.equal(await resolveToken(config, { API_TOKEN: 'env-token' }), 'env-token');
  assert.equal(await resolveToken(config, {}), 'file-token-123');
  const noFile = await parseConfig(MINIMAL, 'cfg.yaml', {}, { cwd: dir });
  await assert.rejects(resolveToken(noFile, {}), (e: unknown) => e instanceof UsageError && /API_TOKEN/.test(e.message));
  await writeFile(tokenFile, '  \n');
  await assert.rejects(resolveToken(config, {}), (e: unknown) => e instanceof UsageError && /is empty/.test(e.message));
  const missing = await parseConfig(`api: { token-file: absent }\n${MINIMAL}`, 'cfg.yaml', {}, { cwd: dir });
  await assert.rejects(resolveToken(missing, {}), (e: unknown) => e instanceof UsageError && /ENOENT/.test(e.message) && !/file-token/.test(e.message));
});
