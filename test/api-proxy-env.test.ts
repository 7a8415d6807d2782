/**
 * A company's forward proxy: the API's host name resolves nowhere but at the proxy. HTTP_PROXY (either case) sends
 * the API calls and the download's redirect target through it, NO_PROXY keeps the hosts it names away from it, and
 * the proxy's credentials never appear in the output.
 */
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { runCli } from './helpers/cli.js';
import { ORG, TestEmulator } from './helpers/emulator.js';
import { startForwardProxy, type ForwardProxy } from './helpers/forward-proxy.js';
import { upsertStickyComment } from '../src/ci/sticky-comment.js';
import type { Config, SourceConfig } from '../src/config/types.js';
import { OutgoingHttp } from '../src/http/outgoing.js';
import { proxySettings } from '../src/http/proxy.js';
import { createRedactor } from '../src/redact.js';
import { createNotifier } from '../src/notify/index.js';
import { startFakeGitHub } from './helpers/fake-github.js';
import { captureLogs } from './helpers/logs.js';
import { startReceiver } from './helpers/receiver.js';
import { useTempTrees } from './helpers/temp-tree.js';

const API_URL = 'http://api.invalid/api/v2';
const REPO = { 'policies/behind-proxy.native': 'main = rule { true }\n', 'policies/behind-proxy.yaml': 'enforcement-level: advisory\n' };

describe('HTTP_PROXY, HTTPS_PROXY and NO_PROXY', { timeout: 120_000 }, () => {
  let api: TestEmulator;
  let proxy: ForwardProxy;
  const repo = useTempTrees('pps-proxy-');

  before(async () => {
    api = await TestEmulator.start();
    proxy = await startForwardProxy({ hosts: { 'api.invalid': api.origin, 'blobs.invalid': api.origin }, rewriteLocations: true, credentials: 'corp-user:Pr0xyPassw0rd' });
  });
  after(async () => {
    await proxy.close();
    await api.close();
  });

  const run = (args: string[], env: Record<string, string>) =>
    runCli([...args, '--organization', ORG, '--api-url', API_URL, '--no-cache'], { env: { API_TOKEN: api.token, LOG_LEVEL: 'info', ...env } });

  it('a run against a host name only the proxy knows goes through the proxy, the download redirect included; the proxy password is never printed', async () => {
    const dir = await repo(REPO);
    proxy.seen.length = 0;
    const applied = await run(['--reconcile', '--source-dir', dir], { HTTP_PROXY: proxy.url });
    assert.equal(applied.code, 0, applied.stderr + applied.stdout);
    assert.ok(proxy.seen.some((r) => r.method === 'POST' && r.url === `${API_URL}/organizations/${ORG}/policies`), JSON.stringify(proxy.seen.map((r) => r.url)));
    assert.ok(proxy.seen.every((r) => r.url.startsWith('http://api.invalid/')));

    proxy.seen.length = 0;
    const dry = await run(['--dry-run', '--source-dir', dir, '--detailed-exitcode'], { http_proxy: proxy.url });
    assert.equal(dry.code, 0, dry.stderr + dry.stdout);
    const blob = proxy.seen.find((r) => r.url.startsWith('http://blobs.invalid/'));
    assert.ok(blob !== undefined, `the redirect target went through the proxy too: ${JSON.stringify(proxy.seen.map((r) => r.url))}`);
    assert.equal(blob.headers.authorization, undefined, 'the token never goes to the redirect target');
    assert.match(applied.stderr, /api requests go through the proxy/);
    assert.match(applied.stderr, /http:\/\/\*\*\*@127\.0\.0\.1:\d+/, 'the proxy is named, without its credentials');
    for (const output of [applied, dry]) assert.doesNotMatch(output.stdout + output.stderr, /Pr0xyPassw0rd|corp-user/);
  });

  it('NO_PROXY naming the API host keeps every request away from the proxy (the name then resolves nowhere, which the run says)', async () => {
    const dir = await repo(REPO);
    const cases: Array<Record<string, string>> = [{ HTTP_PROXY: proxy.url, NO_PROXY: 'api.invalid' }, { HTTP_PROXY: proxy.url, no_proxy: '.invalid' }];
    for (const env of cases) {
      proxy.seen.length = 0;
      const dry = await run(['--dry-run', '--source-dir', dir], env);
      assert.equal(proxy.seen.length, 0, JSON.stringify(proxy.seen.map((r) => r.url)));
      assert.equal(dry.code, 1);
      assert.match(dry.stderr, /the host name "api\.invalid" does not resolve/);
    }
  });

  it('NO_PROXY applies to the redirect target of a download: its host is reached directly', async () => {
    const dir = await repo(REPO);
    const config = join(await repo(), 'config.yaml');
    await writeFile(config, ['api:', `  url: ${API_URL}`, '  retry-budget: 0.5', 'sources:', '  - name: default', `    organization: ${ORG}`, `    path: ${dir}`, ''].join('\n'));
    proxy.seen.length = 0;
    const dry = await runCli(['--config', config, '--dry-run', '--no-cache'], { env: { API_TOKEN: api.token, LOG_LEVEL: 'warn', HTTP_PROXY: proxy.url, NO_PROXY: 'blobs.invalid' } });
    assert.ok(proxy.seen.some((r) => r.url.endsWith('/download')), 'the download link went through the proxy');
    assert.ok(!proxy.seen.some((r) => r.url.startsWith('http://blobs.invalid/')), 'the redirect target did not');
    assert.equal(dry.code, 1, 'blobs.invalid resolves nowhere without the proxy');
    assert.match(dry.stdout + dry.stderr, /ENOTFOUND|EAI_AGAIN/);
  });

  it('a proxy URL with credentials is redacted from a failure; a proxy URL that is not one is refused naming the variable only', async () => {
    const dir = await repo(REPO);
    const wrong = proxy.url.replace('Pr0xyPassw0rd', 'Wr0ngPassw0rd');
    const config = join(await repo(), 'wrong.yaml');
    await writeFile(config, ['api:', `  url: ${API_URL}`, '  retry-budget: 0.5', 'sources:', '  - name: default', `    organization: ${ORG}`, `    path: ${dir}`, ''].join('\n'));
    const refused = await runCli(['--config', config, '--dry-run'], { env: { API_TOKEN: api.token, LOG_LEVEL: 'debug', HTTPS_PROXY: wrong, HTTP_PROXY: wrong } });
    assert.equal(refused.code, 1);
    assert.match(refused.stdout + refused.stderr, /407/);
    assert.doesNotMatch(refused.stdout + refused.stderr, /Wr0ngPassw0rd|corp-user/);

    const bad = await run(['--dry-run', '--source-dir', dir], { HTTPS_PROXY: 'socks5://user:S3cretSocks@proxy:1080' });
    assert.equal(bad.code, 1, bad.stderr);
    assert.match(bad.stderr, /HTTPS_PROXY must be an http:\/\/ or https:\/\/ proxy URL/);
    assert.doesNotMatch(bad.stderr, /S3cretSocks/);
  });

  it('notifications and the pull-request comment go through the proxy too', async (t) => {
    const receiver = await startReceiver(t);
    const github = await startFakeGitHub('o/r', 'gh-token');
    const hooks = await startForwardProxy({ hosts: { 'hooks.invalid': receiver.url, 'github.invalid': github.url } });
    t.after(async () => {
      await hooks.close();
      await github.close();
    });
    const env = { HTTPS_PROXY: 'http://127.0.0.1:9', http_proxy: hooks.url, STATUS_URL: 'http://hooks.invalid/repos/o/r' };
    const notifications = [{ name: 'status', type: 'github-status' as const, urlEnv: 'STATUS_URL', urlFile: null, secretEnv: null, events: null, sources: null, statusUrl: null }];
    const notifier = createNotifier({ config: { notifications } as unknown as Config, env, logger: captureLogs().logger, redact: createRedactor([]) });
    notifier.passStarted({ name: 'main', organization: ORG } as SourceConfig, 'abc123');
    await notifier.close(10_000);
    assert.deepEqual(hooks.seen.map((r) => `${r.method} ${r.url}`), ['POST http://hooks.invalid/repos/o/r/statuses/abc123']);
    assert.equal(receiver.accepted().length, 1);

    const http = new OutgoingHttp({ proxy: proxySettings(env) });
    try {
      const made = await upsertStickyComment({ apiUrl: 'http://github.invalid', repository: 'o/r', issue: 3, token: 'gh-token', body: 'the plan', source: 'main', http });
      assert.equal(made.action, 'created');
    } finally {
      await http.close();
    }
    assert.ok(hooks.seen.some((r) => r.method === 'POST' && r.url === 'http://github.invalid/repos/o/r/issues/3/comments'), JSON.stringify(hooks.seen.map((r) => r.url)));
  });
});
