/**
 * A proxy that never lets a tunnel through cannot hang the tool: a CONNECT left unanswered fails within the request
 * timeout, closing drops what a proxy still holds, and a refusal (the connection refused, a 407 or a 403 to CONNECT)
 * is final, named by its variable with the credentials left out.
 */
import assert from 'node:assert/strict';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { ApiClient } from '../src/api/client.js';
import { proxySettings } from '../src/http/proxy.js';
import { NetworkError, OutgoingFailure } from '../src/errors.js';
import { OutgoingHttp } from '../src/http/outgoing.js';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Config } from '../src/config/types.js';
import { runDaemon } from '../src/daemon/index.js';
import { runCli } from './helpers/cli.js';
import { testSource } from './helpers/daemon-harness.js';
import { startConnectProxy, type ConnectProxy, type ConnectProxyMode } from './helpers/connect-proxy.js';
import { ORG } from './helpers/emulator.js';
import { captureLogs } from './helpers/logs.js';
import { useTempTrees } from './helpers/temp-tree.js';
import { VirtualClock } from './helpers/virtual-clock.js';
import { waitFor } from './helpers/wait.js';

const API_URL = 'https://api.invalid/api/v2';

describe('a proxy that lets no tunnel through', { timeout: 120_000 }, () => {
  const proxies: ConnectProxy[] = [];
  const start = async (mode: ConnectProxyMode): Promise<ConnectProxy> => {
    const proxy = await startConnectProxy(mode);
    proxies.push(proxy);
    return proxy;
  };
  after(() => Promise.all(proxies.map((p) => p.close())));
  const trees = useTempTrees('pps-proxy-deadline-');
  let dir: string;
  before(async () => {
    dir = await trees({ 'policies/p.native': 'main = rule { true }\n' });
  });

  // The tunnel's deadline as long as the request's: a held tunnel is let go by the timeout, the pass or closing alone.
  const client = (proxy: ConnectProxy, timeoutMs: number) => {
    const logs = captureLogs();
    return { logs, api: new ApiClient({ baseUrl: API_URL, token: 'test-token-Secret123', logger: logs.logger, timeoutMs, tunnelDeadlineMs: timeoutMs, retryBudgetMs: 0, proxy: proxySettings({ HTTPS_PROXY: proxy.url }) }) };
  };

  it('a CONNECT never answered fails the request within its timeout, naming the proxy without its credentials', { timeout: 30_000 }, async () => {
    const proxy = await start('hang');
    const { api } = client(proxy, 500);
    try {
      const error = await api.listPolicies(ORG).then(() => assert.fail('answered'), (e: unknown) => e);
      assert.ok(error instanceof NetworkError, String(error));
      assert.match(error.message, /through the proxy of HTTPS_PROXY, http:\/\/\*\*\*@127\.0\.0\.1:\d+/);
      assert.doesNotMatch(error.message, /Pr0xyPassw0rd|corp-user/);
      // The tunnel's deadline ends the connection to the proxy too: nothing is left holding a slot of the pool.
      await waitFor('the connection to the proxy to close', () => (proxy.open() === 0 ? true : undefined));
    } finally {
      await api.close();
    }
  });

  it('a proxy that establishes no tunnel three tries in a row is given up on, however much of the retry budget is left', { timeout: 60_000 }, async () => {
    const proxy = await start('hang');
    const logs = captureLogs();
    // Each try's tunnel has its deadline (10 s in use); a budget of ten minutes would otherwise keep trying. The
    // back-off between tries runs on a clock that moves at once: only the tunnel's deadlines take real time.
    const api = new ApiClient({
      baseUrl: API_URL, token: 'test-token-Secret123', logger: logs.logger, timeoutMs: 30_000, tunnelDeadlineMs: 300, retryBudgetMs: 600_000,
      proxy: proxySettings({ HTTPS_PROXY: proxy.url }), clock: new VirtualClock({ autoAdvance: true }),
    });
    try {
      const error = await api.listPolicies(ORG).then(() => assert.fail('answered'), (e: unknown) => e);
      assert.ok(error instanceof NetworkError, String(error));
      assert.match(error.message, /proxy-tunnel-timeout: the proxy established no tunnel within 300 ms \(through the proxy of HTTPS_PROXY, http:\/\/\*\*\*@127\.0\.0\.1:\d+\); no tunnel in 3 tries in a row, so no more: check HTTPS_PROXY and NO_PROXY/);
      assert.equal(proxy.connections(), 3, 'three CONNECTs, then no more');
    } finally {
      await api.close(50);
    }
  });

  it('a try is given no longer than what is left of the retry budget', { timeout: 60_000 }, async () => {
    // A server that takes the connection and never answers: the first try takes the request timeout, the next what
    // is left of a 300 ms budget (a second at least), not another whole request timeout.
    const sockets = new Set<Socket>();
    const server = createServer((socket) => {
      sockets.add(socket);
      socket.on('error', () => undefined);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const api = new ApiClient({ baseUrl: `http://127.0.0.1:${port}/api/v2`, token: 'test-token-Secret123', logger: captureLogs().logger, timeoutMs: 1_500, retryBudgetMs: 300 });
    try {
      const error = await api.listPolicies(ORG).then(() => assert.fail('answered'), (e: unknown) => e);
      assert.ok(error instanceof NetworkError, String(error));
      assert.match(error.message, /timeout: no response within 1000 ms; gave up after 2 tries/);
    } finally {
      await api.close(50);
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it('a pass that ends (its signal aborts) is let go at once, while the proxy still holds the tunnel', { timeout: 30_000 }, async () => {
    const proxy = await start('hang');
    const { api } = client(proxy, 600_000);
    const pass = new AbortController();
    try {
      const pending = api.withSignal(pass.signal).listPolicies(ORG).then(() => 'answered', (e: unknown) => e);
      while (proxy.connections() === 0) await new Promise((resolve) => setImmediate(resolve));
      pass.abort(new Error('the pass timed out'));
      const outcome = await pending;
      assert.ok(outcome instanceof Error && outcome.message === 'the pass timed out', String(outcome));
    } finally {
      await api.close(50);
    }
  });

  it('closing drops a request a silent proxy still holds: close ends, and the request rejects', { timeout: 30_000 }, async () => {
    const proxy = await start('hang');
    const { api, logs } = client(proxy, 600_000);
    const pending = api.listPolicies(ORG).then(() => 'answered', (e: unknown) => e);
    while (proxy.connections() === 0) await new Promise((resolve) => setImmediate(resolve));
    await api.close(50);
    assert.ok((await pending) instanceof Error);
    assert.ok(logs.messages().includes('api requests still under way when closing; dropping their connections'));
  });

  for (const mode of ['refuse', '407', 'forbidden'] as const) {
    it(`a proxy's ${mode === 'refuse' ? 'refused connection' : `${mode} answer to CONNECT`} is final: one try, the run fails naming HTTPS_PROXY`, async () => {
      const proxy = await start(mode);
      const run = await runCli(['--dry-run', '--source-dir', dir, '--organization', ORG, '--api-url', API_URL, '--no-cache'], { env: { API_TOKEN: 'test-token-Secret123', LOG_LEVEL: 'warn', HTTPS_PROXY: proxy.url } });
      assert.equal(run.code, 1, run.stdout + run.stderr);
      const said = run.stdout + run.stderr;
      assert.match(said, /the proxy of HTTPS_PROXY \(http:\/\/\*\*\*@127\.0\.0\.1:\d+\) (refused the connection|answered (407|403))/);
      assert.doesNotMatch(said, /retrying|gave up after/);
      assert.doesNotMatch(said, /Pr0xyPassw0rd|corp-user/);
      // The live read asks for policies and pools at once: one CONNECT each, none tried again.
      if (mode !== 'refuse') assert.ok(proxy.connections() <= 2, `${proxy.connections()} CONNECTs: one per request, no retry`);
    });
  }
  it('the daemon stops on its shutdown signal while a silent proxy holds its pass', { timeout: 60_000 }, async () => {
    const proxy = await start('hang');
    const stateDir = await mkdtemp(join(tmpdir(), 'pps-proxy-stop-'));
    const config: Config = {
      api: { url: API_URL, tokenFile: null, rateLimit: 'auto', concurrency: 8, legacyEnforce: false, nativeKind: 'native', retryBudgetSeconds: 60 },
      sources: [testSource('main', { path: dir })],
      listen: '127.0.0.1:0',
      webhookSecretEnv: 'TEST_WEBHOOK_SECRET',
      shutdownTimeoutSeconds: 1,
      stateDir,
      notifications: [],
    };
    let stop: () => void = () => undefined;
    const shutdown = new Promise<void>((resolve) => (stop = resolve));
    try {
      const logs = captureLogs();
      const stopped = runDaemon({ config, logger: logs.logger, env: { API_TOKEN: 'test-token-Secret123', HTTPS_PROXY: proxy.url }, shutdown, noCache: true });
      // The start-up pass is on its way through the proxy, which never answers.
      await waitFor('the start-up pass to reach the proxy', () => (proxy.connections() > 0 ? true : undefined));
      stop();
      assert.equal(await stopped, 0);
      // Once the daemon has stopped, the tunnel the proxy still holds belongs to no pass: it is dropped after a
      // quarter of a second, not after the client's usual 5 s close, which would outlast shutdown-timeout.
      const dropped = logs.lines.map((line) => JSON.parse(line) as { msg: string; graceSeconds?: number }).filter((r) => r.msg === 'api requests still under way when closing; dropping their connections');
      assert.deepEqual(dropped.map((r) => r.graceSeconds), [0.25]);
    } finally {
      await rm(stateDir, { recursive: true, force: true });
    }
  });
  it('a notification through a proxy that answers 407 is tried once, and the failure names HTTP_PROXY without credentials', async () => {
    const proxy = await start('407');
    const http = new OutgoingHttp({ proxy: proxySettings({ HTTP_PROXY: proxy.url }) });
    try {
      const policy = { attempts: 5, initialMs: 1, maxMs: 1, jitter: 'none' as const, timeoutMs: 10_000 };
      const error = await http.send({ method: 'POST', url: 'http://hooks.invalid/notify', headers: {}, body: '{}' }, policy).then(() => assert.fail('sent'), (e: unknown) => e);
      assert.ok(error instanceof OutgoingFailure && error.final, String(error));
      assert.match(error.message, /^the proxy of HTTP_PROXY \(http:\/\/\*\*\*@127\.0\.0\.1:\d+\) answered 407/);
      assert.equal(proxy.connections(), 1, 'one try');
    } finally {
      await http.close();
    }
  });
});
