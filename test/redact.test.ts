import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { describe, it } from 'node:test';
import { PassThrough } from 'node:stream';
import { checkReachable } from '../src/api/reachable.js';
import { RedactedIo } from '../src/cli/redacted-io.js';
import { savedRun } from '../src/cli/saved-run.js';
import { configFromFlags } from '../src/config/flags.js';
import { knownSecrets } from '../src/config/secrets.js';
import { createRedactor } from '../src/redact.js';
import { runCli } from './helpers/cli.js';
import { ORG } from './helpers/emulator.js';
import { useTempTrees } from './helpers/temp-tree.js';
import { useWorld } from './helpers/world.js';

const POLICY = { 'policies/p.native': 'main = rule { true }\n' };

describe('the one redactor', () => {
  const files = useTempTrees('pps-redact-secrets-');
  const redact = createRedactor(['tok-Secret-123', 'hook-Secret-456']);

  const cases: Array<[string, string]> = [
    ['GET /x?page=2 answered "tok-Secret-123 may not"', 'GET /x?page=2 answered "*** may not"'],
    ['a URL-encoded tok-Secret-123 as tok-Secret-123 and %22hook-Secret-456%22', 'a URL-encoded *** as *** and %22***%22'],
    ['git fetch of https://user:p@ss-SECRET@git.example.com/acme/p.git failed', 'git fetch of https://***@git.example.com/acme/p.git failed'],
    ['https://glpat-SECRET@git.example.com/p.git', 'https://***@git.example.com/p.git'],
    ['https://h.example.com/p.git?private_token=glpat-SECRET&ref=main', 'https://h.example.com/p.git?private_token=***&ref=main'],
    ['/api?access_token=A1&key=B2&X-Amz-Signature=C3&sig=D4&password=E5&client_secret=F6', '/api?access_token=***&key=***&X-Amz-Signature=***&sig=***&password=***&client_secret=***'],
    ['Authorization: Bearer abc.def and authorization: Basic ZGVwbG95OnB3', 'Authorization: Bearer *** and authorization: Basic ***'],
    ['{"a":"https://host.example.com","b":"mail bob@example.com"}', '{"a":"https://host.example.com","b":"mail bob@example.com"}'],
  ];
  for (const [text, shown] of cases) {
    it(`shows ${JSON.stringify(text)} as ${JSON.stringify(shown)}`, () => assert.equal(redact(text), shown));
  }

  it('knows the secrets of the environment and the config: tokens, proxy and git credentials, notification URLs and secrets', () => {
    const config = configFromFlags({ sourceDir: '.', organization: 'acme', apiUrl: 'https://api.example.com/api/v2' }, {});
    const withMore = {
      ...config,
      sources: config.sources.map((s) => ({ ...s, path: null, git: { url: 'https://deploy:gitpass-1@git.example.com/p.git', ref: 'main', path: '.' } })),
      notifications: [{ name: 'chat', type: 'slack' as const, urlEnv: 'SLACK_URL', urlFile: null, secretEnv: null, events: null, sources: null, statusUrl: null }],
    };
    const env = {
      API_TOKEN: 'api-tok-1', CONTROL_TOKEN: 'control-tok-1', STATUS_TOKEN: 'status-tok-1', WEBHOOK_SECRET: 'hook-1',
      HTTPS_PROXY: 'http://proxyuser:proxypass-1@proxy.example.com:3128', SLACK_URL: 'https://hooks.slack.com/services/T0/B0/slack-1',
    };
    const redactAll = createRedactor(knownSecrets(withMore, env));
    const text = 'api-tok-1 control-tok-1 status-tok-1 hook-1 proxypass-1 gitpass-1 /services/T0/B0/slack-1';
    assert.equal(redactAll(text), '*** *** *** *** *** *** ***');
  });

  // A secret holding characters that URL-encoding and JSON escape: `/`, `+`, `"` and `\`.
  const odd = 'tok/Se+cr"et\\9-odd';
  const withOdd = createRedactor([odd]);

  it('hides a secret in its URL-encoded form, as a link or a redirect carries it', () => {
    const text = `GET https://api.example.com/api/v2/search?q=${encodeURIComponent(odd)} answered 404`;
    assert.equal(withOdd(text), 'GET https://api.example.com/api/v2/search?q=*** answered 404');
  });

  it('hides a secret in its JSON-escaped form, as a JSON log line or error body carries it', () => {
    const text = JSON.stringify({ error: `token ${odd} is not valid` });
    assert.deepEqual(JSON.parse(withOdd(text)), { error: 'token *** is not valid' });
  });

  it('hides a secret that holds another whole: the longer is hidden first, so nothing of it shows', () => {
    const redactBoth = createRedactor(['deploy-Key-41', 'deploy-Key-41-and-more']);
    assert.equal(redactBoth('sent deploy-Key-41-and-more, then deploy-Key-41'), 'sent ***, then ***');
  });

  it('knows a token given as a git URL\'s user name, wherever it shows alone', () => {
    const config = configFromFlags({ sourceDir: '.', organization: 'acme', apiUrl: 'https://api.example.com/api/v2' }, {});
    const git = { url: 'https://ghp-UserToken-41@git.example.com/acme/p.git', ref: 'main', path: '.' };
    const redactAll = createRedactor(knownSecrets({ ...config, sources: config.sources.map((s) => ({ ...s, path: null, git })) }, {}));
    assert.equal(redactAll('remote: token ghp-UserToken-41 has expired'), 'remote: token *** has expired');
  });

  it('knows the API token read from api.token-file', async () => {
    const dir = await files({ 'token.txt': 'file-Token-41\n' });
    const config = configFromFlags({ sourceDir: '.', organization: 'acme', apiUrl: 'https://api.example.com/api/v2' }, {});
    const redactAll = createRedactor(knownSecrets({ ...config, api: { ...config.api, tokenFile: join(dir, 'token.txt') } }, {}));
    assert.equal(redactAll('the API answered 401 to file-Token-41'), 'the API answered 401 to ***');
  });
});

describe('secrets where the tool writes', () => {
  const repo = useTempTrees('pps-redact-');

  it('stdout and stderr of the command line hide the secrets of the environment, and those of the config once learnt', () => {
    const written = { stdout: '', stderr: '' };
    const stream = (key: 'stdout' | 'stderr') => {
      const s = new PassThrough();
      s.on('data', (chunk: Buffer) => (written[key] += chunk.toString('utf8')));
      return s;
    };
    const io = new RedactedIo({ stdout: stream('stdout'), stderr: stream('stderr'), env: { CONTROL_TOKEN: 'control-Secret-1' } });
    io.stdout.write('plan naming control-Secret-1\n');
    const config = configFromFlags({ sourceDir: '.', organization: 'acme', apiUrl: 'https://api.example.com/api/v2' }, {});
    io.learn({ ...config, sources: config.sources.map((s) => ({ ...s, git: { url: 'https://git.example.com/p.git?ref=gitref-Secret-2', ref: 'main', path: '.' } })) });
    io.stderr.write('error naming gitref-Secret-2 and control-Secret-1\n');
    assert.deepEqual(written, { stdout: 'plan naming ***\n', stderr: 'error naming *** and ***\n' });
  });

  it('the unreachable-API error names the URL without its credentials, before any output redacts it', async () => {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    await new Promise<void>((resolve) => server.close(() => resolve()));
    const error = await checkReachable(`http://deploy:pa@ss-SECRET9@127.0.0.1:${port}/api/v2?private_token=glpat-SECRET9`).then(() => null, (e: unknown) => e as Error);
    assert.ok(error !== null);
    assert.ok(!error.message.includes('SECRET9') && !error.message.includes('pa@ss'), error.message);
    assert.match(error.message, new RegExp(`^cannot reach the API at http://\\*\\*\\*@127\\.0\\.0\\.1:${port}/api/v2\\?private_token=\\*\\*\\*: `));
  });

  it('an API URL that cannot be reached is named without its user part or its token in the query', async () => {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    await new Promise<void>((resolve) => server.close(() => resolve()));
    const dir = await repo(POLICY);
    const apiUrl = `http://deploy:pa@ss-SECRET9@127.0.0.1:${port}/api/v2?private_token=glpat-SECRET9`;
    const run = await runCli(['--dry-run', '--source-dir', dir, '--organization', ORG, '--api-url', apiUrl], { env: { API_TOKEN: 'test-token-Secret123', LOG_LEVEL: 'error' } });
    assert.equal(run.code, 1, run.stdout + run.stderr);
    const output = run.stdout + run.stderr;
    for (const secret of ['SECRET9', 'pa@ss', 'deploy']) assert.ok(!output.includes(secret), `${secret} in ${output}`);
    assert.match(run.stderr, new RegExp(`cannot reach the API at http://\\*\\*\\*@127\\.0\\.0\\.1:${port}/api/v2\\?private_token=\\*\\*\\*: nothing accepts connections`));
  });

  it('a saved plan keeps neither a git password holding @ nor a query token, of the git URL or of the API URL', () => {
    const config = configFromFlags({ sourceDir: '.', organization: 'acme', apiUrl: 'https://api-user:api-p@ss-SECRET@api.example.com/api/v2?token=tok-SECRET' }, {});
    const git = { url: 'https://user:p@ss-SECRET@git.example.com/acme/p.git?private_token=glpat-SECRET', ref: 'main', path: '.' };
    const sources = config.sources.map((s) => ({ ...s, path: null, git }));
    const run = savedRun(config, sources, { prune: false, force: false });
    const saved = JSON.stringify(run);
    assert.ok(!saved.includes('SECRET') && !saved.includes('p@ss') && !saved.includes('user'), saved);
    assert.equal(run.api_url, 'https://api.example.com/api/v2?token=***');
    assert.equal(run.sources[0]?.git?.url, 'https://git.example.com/acme/p.git?private_token=***');
  });
});

describe('log lines', () => {
  const fixture = useWorld();

  it('a log line of the command line hides a known secret, in the JSON-escaped form the line carries it in', async () => {
    const { world } = fixture;
    // The logger writes to the process's stderr as it is: its redaction hook is the only one a log line goes through.
    const secret = 'plan"Secret\\41-control';
    const dir = await fixture.repo(POLICY);
    const out = join(await fixture.repo(), `${secret}.json`);
    const env = { API_TOKEN: world.token, CONTROL_TOKEN: secret, LOG_LEVEL: 'info', LOG_FORMAT: 'json' };
    const run = await runCli(['--dry-run', '--source-dir', dir, '--organization', ORG, '--api-url', world.url, '--out', out], { env });
    assert.equal(run.code, 0, run.stdout + run.stderr);
    assert.ok((await readFile(out, 'utf8')).length > 0, 'the plan is saved where asked');
    const lines = run.stderr.split('\n').filter((line) => line !== '').map((line) => JSON.parse(line) as { msg: string; file?: string });
    const saved = lines.find((line) => line.msg.startsWith('plan saved'));
    assert.equal(saved?.file, join(dirname(out), '***.json'));
    assert.ok(!run.stderr.includes('Secret\\\\41') && !run.stderr.includes('Secret\\41'), run.stderr);
  });
});
