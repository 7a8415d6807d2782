/**
 * Text from outside (the lease store's holder identity, the API's error detail, a daemon's answer) reaches the terminal
 * only through the printable filter: no escape sequence runs, and no line of it passes for one of the tool's own.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { runCli, type CliRun } from './helpers/cli.js';
import { ORG, policyBody, TestEmulator } from './helpers/emulator.js';
import { startHostileProxy, type HostileServer } from './helpers/hostile-proxy.js';
import { useTempTrees } from './helpers/temp-tree.js';

/** A title change, a colour, a screen clear, and a line break followed by a line the tool could have written. */
const FORGED = 'pod-a\u001b]0;owned\u0007\u001b[31m\u001b[2J\r\nforged: Apply complete! Resources: 0 created.';

function assertClean(run: CliRun): void {
  const said = run.stdout + run.stderr;
  assert.ok(!said.includes('\u001b'), `an escape sequence reached the terminal: ${JSON.stringify(said)}`);
  assert.ok(!said.includes('\u0007'), 'a bell reached the terminal');
  assert.doesNotMatch(said, /(^|[\r\n])forged:/, 'a forged line reached the terminal');
  assert.match(said, /\\u\{1b\}/, 'the text is still shown, escaped');
}

/** A daemon's HTTP answers: `/status` and the sync of each source. */
async function fakeDaemon(answers: Record<string, { status: number; body: unknown }>): Promise<{ url: string; close: () => Promise<void> }> {
  const server: Server = createServer((req, res) => {
    const answer = answers[`${req.method} ${(req.url ?? '').split('?')[0]}`] ?? { status: 404, body: { error: 'no such route' } };
    res.writeHead(answer.status, { 'content-type': 'application/json' }).end(JSON.stringify(answer.body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

describe('text from outside on a terminal', { timeout: 120_000 }, () => {
  const row = { name: 'main', lastAttemptedRevision: null, lastAppliedRevision: null, result: 'failed', driftCount: null, nextRunAt: null, running: false };

  it('status: a holder identity with escape sequences and a line break is shown escaped, on its line', async () => {
    const daemon = await fakeDaemon({ 'GET /status': { status: 200, body: { leadership: { identity: `pod-b${FORGED}`, leading: false, leader: FORGED, storeReached: true }, sources: [{ ...row, name: `main${FORGED}` }] } } });
    try {
      const status = await runCli(['status', '--daemon', daemon.url]);
      assert.equal(status.code, 0, status.stderr);
      assertClean(status);
      assert.match(status.stdout, /^standby: this replica \(pod-bpod-a\\u\{1b\}.*\) does not sync; the leader is pod-a\\u\{1b\}/);
    } finally {
      await daemon.close();
    }
  });

  it('sync: a pass error and a standby\'s answer naming a forged leader are shown escaped', async () => {
    const pass = { trigger: 'control', startedAt: '2026-01-01T00:00:00Z', result: 'failed', revision: null, error: `PATCH /policies/pol-a failed: 422 ${FORGED}`, drift: null, changes: [], changesOmitted: 0 };
    const daemon = await fakeDaemon({ 'POST /sources/main/sync': { status: 200, body: { pass } } });
    const standby = await fakeDaemon({ 'POST /sources/main/sync': { status: 503, body: { error: `this replica is a standby; the leader is ${FORGED}` } } });
    try {
      const failed = await runCli(['sync', '--source', 'main', '--daemon', daemon.url], { env: { CONTROL_TOKEN: 'control-token-1234567890' } });
      assert.equal(failed.code, 1, failed.stderr);
      assertClean(failed);
      const refused = await runCli(['sync', '--source', 'main', '--daemon', standby.url], { env: { CONTROL_TOKEN: 'control-token-1234567890' } });
      assert.equal(refused.code, 1);
      assertClean(refused);
      assert.match(refused.stderr, /503: this replica is a standby; the leader is pod-a\\u\{1b\}/);
    } finally {
      await daemon.close();
      await standby.close();
    }
  });

  describe('a one-shot run whose API answers an error detail that forges a line', () => {
    let api: TestEmulator;
    let proxy: HostileServer;
    const trees = useTempTrees('pps-forged-');
    before(async () => {
      api = await TestEmulator.start();
      const detail = { errors: [{ status: '422', title: 'invalid attribute', detail: `Name ${FORGED}` }] };
      const made = await api.call('POST', `/organizations/${ORG}/policies`, { body: policyBody('renamed', { kind: 'native', 'enforcement-level': 'advisory' }) });
      assert.equal(made.status, 200, made.text);
      proxy = await startHostileProxy(api.origin, {
        answer: (seen) => (seen.method === 'POST' && seen.url.endsWith('/policies')
          ? { status: 422, headers: { 'content-type': 'application/vnd.api+json' }, body: JSON.stringify(detail) }
          : undefined),
        // A name the service holds that no declared file could carry.
        rewrite: (seen, document) => {
          const data = (document as { data?: unknown }).data;
          if (seen.method !== 'GET' || !Array.isArray(data)) return document;
          for (const item of data as Array<{ attributes?: { name?: string } }>) if (item.attributes?.name === 'renamed') item.attributes.name = `renamed${FORGED}`;
          return document;
        },
      });
    });
    after(async () => {
      await proxy.close();
      await api.close();
    });

    for (const format of ['text', 'markdown'] as const) {
      it(`--reconcile --output ${format}: the failed create's message is one escaped line, in the output and on stderr`, async () => {
        const dir = await trees({ 'policies/forged.native': 'main = rule { true }\n' });
        const run = await runCli(['--reconcile', '--source-dir', dir, '--organization', ORG, '--api-url', `${proxy.origin}/api/v2`, '--no-cache', '--output', format], { env: { API_TOKEN: api.token, LOG_LEVEL: 'info', LOG_FORMAT: 'pretty' } });
        assert.equal(run.code, 1, run.stdout + run.stderr);
        assertClean(run);
        // Markdown escapes the escape's backslash too, as the plan's text is escaped: it reads `\u{1b}` once rendered.
        const shown = format === 'text' ? /Name pod-a\\u\{1b\}/ : /Name pod-a\\\\u\{1b\}\\\]0;owned/;
        assert.match(run.stdout, new RegExp(`failed: POST /organizations/example-org/policies failed: 422 invalid attribute: ${shown.source}`));
      });
    }
      it('--export: a name it cannot write is listed escaped', async () => {
      const dir = await trees();
      const run = await runCli(['--export', `${dir}/out`, '--organization', ORG, '--api-url', `${proxy.origin}/api/v2`], { env: { API_TOKEN: api.token, LOG_LEVEL: 'warn' } });
      assert.equal(run.code, 0, run.stdout + run.stderr);
      assertClean(run);
      assert.match(run.stdout, /Not exported \(1\):\n {2}policy "renamedpod-a\\u\{1b\}/);
    });
});
});
