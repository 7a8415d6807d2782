/**
 * A server that echoes the token back (in an error body, in a redirect's URL, in a header value, in a pagination
 * URL) never gets it printed: not on stdout or stderr, not in a saved plan, not on /status or /metrics.
 */
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it, type TestContext } from 'node:test';
import { runCli } from './helpers/cli.js';
import { firstSourceStatus, spawnDaemon } from './helpers/daemon-process.js';
import { ORG, TestEmulator } from './helpers/emulator.js';
import { bearer, startHostileProxy, type Answer, type HostileServer, type Seen } from './helpers/hostile-proxy.js';
import { tempTree } from './helpers/temp-tree.js';
import { waitFor } from './helpers/wait.js';

type Echo = 'error body' | 'pagination URL' | 'redirect URL' | 'header value';

const REPO = { 'policies/echo-code.native': 'main = rule { "echo" == "echo" }\n' };

describe('a server that echoes the token back', { timeout: 60_000 }, () => {
  let api: TestEmulator;
  let proxy: HostileServer;
  let echo: Echo = 'error body';

  /** The hostile answers, each made of the token the request carried. */
  function answer(seen: Seen): Answer | undefined {
    const token = bearer(seen) ?? 'no-token';
    const json = { 'content-type': 'application/vnd.api+json', 'x-echo': token };
    const policies = seen.url.startsWith(`/api/v2/organizations/${ORG}/policies`);
    if (echo === 'error body' && policies) {
      return { status: 400, headers: json, body: JSON.stringify({ errors: [{ status: '400', title: 'bad request', detail: `the token ${token} may not list policies` }] }) };
    }
    if (echo === 'redirect URL' && seen.url.endsWith('/download')) return { status: 302, headers: { location: `${proxy.origin}/blobs/${token}/code` } };
    if (seen.url.startsWith('/blobs/')) return { status: 403, headers: { 'x-echo': seen.url }, body: `forbidden: ${seen.url}` };
    if (echo === 'header value' && seen.url.endsWith('/download')) return { status: 302, headers: { location: `http://[${token}]/code`, 'x-echo': token } };
    return undefined;
  }

  /** The pagination URL names the token (same origin, so it is followed, with the token, and fails). */
  function rewrite(seen: Seen, document: unknown): unknown {
    if (echo === 'pagination URL' && seen.url.startsWith(`/api/v2/organizations/${ORG}/policies?`)) {
      const page = document as Record<string, unknown>;
      page['links'] = { next: `${proxy.origin}/api/v2/organizations/${ORG}/policies/${bearer(seen) ?? ''}/more?page%5Bnumber%5D=2` };
      delete page['meta'];
    }
    return document;
  }

  before(async () => {
    api = await TestEmulator.start();
    proxy = await startHostileProxy(api.origin, { answer, rewrite });
  });
  after(async () => {
    await proxy.close();
    await api.close();
  });

  function leaks(text: string): boolean {
    return text.includes(api.token);
  }

  for (const mode of ['error body', 'pagination URL', 'redirect URL', 'header value'] satisfies Echo[]) {
    it(`is never printed when it comes back in ${mode === 'header value' ? 'a' : 'the'} ${mode}`, async (t: TestContext) => {
      const dir = await tempTree(t, REPO);
      const state = await tempTree(t, {}, 'pps-state-');
      const env = { API_TOKEN: api.token, LOG_LEVEL: 'debug', STATE_DIR: state };
      echo = 'none' as Echo;
      const direct = await runCli(['--reconcile', '--source-dir', dir, '--organization', ORG, '--api-url', api.url], { env });
      assert.equal(direct.code, 0, direct.stdout + direct.stderr);
      echo = mode;
      const file = path.join(dir, 'plan.json');
      const before = proxy.seen.length;
      const run = await runCli(['--dry-run', '--source-dir', dir, '--organization', ORG, '--api-url', `${proxy.origin}/api/v2`, '--no-cache', '--out', file], { env });
      assert.equal(run.code, 1, `${run.stdout}\n----\n${run.stderr}`);
      assert.ok(proxy.seen.slice(before).some((s) => bearer(s) === api.token), 'the proxy had the token to echo');
      assert.ok(!leaks(run.stdout), run.stdout);
      assert.ok(!leaks(run.stderr), run.stderr);
      assert.ok(!leaks(await readFile(file, 'utf8')), 'the saved plan');
      if (mode !== 'header value') assert.match(run.stdout, /\*\*\*/, 'the echo reached the message, redacted');
    });
  }

  for (const mode of ['error body', 'pagination URL'] satisfies Echo[]) {
    it(`is never on /status, /metrics or in the daemon's logs when it comes back in the ${mode}`, async (t: TestContext) => {
      const dir = await tempTree(t, REPO);
      echo = 'none' as Echo;
      const state = await tempTree(t, {}, 'pps-state-');
      const direct = await runCli(['--reconcile', '--source-dir', dir, '--organization', ORG, '--api-url', api.url], { env: { API_TOKEN: api.token, STATE_DIR: state } });
      assert.equal(direct.code, 0, direct.stdout + direct.stderr);
      echo = mode;
      const daemon = await spawnDaemon(t, {
        api: { url: `${proxy.origin}/api/v2` },
        sources: [{ name: 'echo', organization: ORG, path: dir, schedule: '0 0 1 1 *' }],
      }, { API_TOKEN: api.token });
      const status = await waitFor('the first pass to fail', async () => {
        const first = await firstSourceStatus(daemon);
        return first.result === 'failure' ? first : undefined;
      }, 20_000);
      const statusText = JSON.stringify(status);
      assert.match(statusText, /\*\*\*/, 'the echo reached /status, redacted');
      assert.ok(!leaks(await (await daemon.get('/status')).text()));
      assert.ok(!leaks(await (await daemon.get('/metrics')).text()));
      assert.ok(!leaks(daemon.stderr()));
    });
  }
});
