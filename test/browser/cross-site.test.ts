/**
 * A web page in the operator's browser against the daemon, in the system Chromium: a page of another site cannot
 * suspend or sync a source, though the browser holds the status page's log-in; a name that resolves to the daemon
 * (DNS rebinding) is refused. Not part of `npm test`; run with `npm run test:browser`.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { chromium } from 'playwright-core';
import type { SourceStatus } from '../../src/daemon/index.js';
import { spawnDaemon } from '../helpers/daemon-process.js';
import { tempTree } from '../helpers/temp-tree.js';
import { waitFor } from '../helpers/wait.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const STATUS = 'browser-status-token-7Qk-xyz';
const CONTROL = 'browser-control-token-9Wd-xyz';

test('a page of another site cannot suspend or sync a source, and a rebound name is refused', async (t) => {
  assert.ok(existsSync(CHROMIUM), `no Chromium at ${CHROMIUM}: apt-get install -y chromium, or set CHROMIUM_PATH`);
  const dir = await tempTree(t, { 'policies/require-tags.native': 'main = rule { true }\n' });
  const daemon = await spawnDaemon(t, {
    api: { url: 'embedded' },
    sources: [{ name: 'platform', organization: 'example-org', path: dir, schedule: '0 0 1 1 *' }],
  }, { STATUS_TOKEN: STATUS, CONTROL_TOKEN: CONTROL });
  const status = async () =>
    ((await (await fetch(`${daemon.origin}/status`, { headers: { authorization: `Bearer ${STATUS}` } })).json()) as { sources: SourceStatus[] }).sources[0];
  await waitFor('the start-up pass', async () => ((await status())?.result === 'success' ? true : undefined), 15_000);
  const passes = () => daemon.logs().filter((l) => l.msg === 'pass started').length;
  const before = passes();

  // The other site: a page on localhost (another site than 127.0.0.1) that tries every way a page has.
  const evil = createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'text/html' });
    response.end(`<!doctype html><title>loading</title>
<iframe name="sink"></iframe>
<form id="f" method="POST" action="${daemon.origin}/sources/platform/sync" target="sink"></form>
<script>
  const attempts = [
    fetch('${daemon.origin}/sources/platform/suspend', { method: 'POST', credentials: 'include', mode: 'no-cors' }).catch(() => null),
    fetch('${daemon.origin}/sources/platform/suspend', { method: 'POST', credentials: 'include', headers: { authorization: 'Bearer ${CONTROL}' } }).catch(() => null),
  ];
  // The form's answer has loaded once the frame holds another origin's page (its document unreadable from here).
  const sink = document.querySelector('iframe');
  const submitted = new Promise((resolve) => sink.addEventListener('load', () => { if (sink.contentDocument === null) resolve(); }));
  document.getElementById('f').submit();
  Promise.all([...attempts, submitted]).then(() => (document.title = 'done'));
</script>`);
  });
  evil.listen(0, '127.0.0.1');
  await once(evil, 'listening');
  t.after(() => evil.close());
  const evilOrigin = `http://localhost:${(evil.address() as AddressInfo).port}`;

  const profile = await mkdtemp(path.join(os.tmpdir(), 'pps-chromium-'));
  const port = new URL(daemon.origin).port;
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync',
      '--host-resolver-rules=MAP rebound.test 127.0.0.1'],
  });
  t.after(async () => {
    await context.close();
    await rm(profile, { recursive: true, force: true });
  });
  const page = context.pages()[0] ?? (await context.newPage());
  // The operator has logged in to the status page: the browser's own cache holds the status token for the daemon's origin.
  const login = new URL('/status.html', daemon.origin);
  login.username = 'operator';
  login.password = STATUS;
  assert.equal((await page.goto(login.href))?.status(), 200, 'the operator sees the page');
  assert.equal((await page.goto(`${daemon.origin}/status.html`))?.status(), 200, 'and again, the credentials remembered');

  await page.goto(evilOrigin);
  // Done once the daemon has answered all three requests: whatever a request set off, it had done before answering.
  await page.waitForFunction('document.title === "done"', undefined, { timeout: 20_000 });
  assert.equal((await status())?.suspended, false, 'the other site did not suspend the source');
  assert.equal(passes(), before, 'nor start a pass');
  // Refused as cross-site before any token was looked at: the page used up none of the operator's attempts.
  const metrics = await (await fetch(`${daemon.origin}/metrics`, { headers: { authorization: `Bearer ${STATUS}` } })).text();
  assert.match(metrics, /policy_pool_sync_auth_failures_total\{endpoint="control"\} 0/);

  // DNS rebinding: a name of the attacker's that resolves to the daemon's address. The page and /status refuse it.
  const rebound = await page.goto(`http://rebound.test:${port}/status.html`);
  assert.equal(rebound?.status(), 403);
  assert.match(await page.locator('body').innerText(), /not a name of this daemon/);
  const probe = await page.goto(`http://rebound.test:${port}/healthz`);
  assert.equal(probe?.status(), 200, 'probes answer any Host');
});
