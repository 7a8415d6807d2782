/**
 * The default deadline of a proxy's tunnel, which every other test gives its own: a proxy that takes the connection
 * and never answers `CONNECT` fails the API's try, and a notification's, after 10 s (TUNNEL_DEADLINE_MS), not after
 * the request's timeout. It waits that long on real time, so it is in the end-to-end tier (test/run.mjs E2E); the
 * figure it holds is the one the failure names.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ApiClient } from '../src/api/client.js';
import { OutgoingHttp } from '../src/http/outgoing.js';
import { proxySettings } from '../src/http/proxy.js';
import { startConnectProxy } from './helpers/connect-proxy.js';
import { captureLogs } from './helpers/logs.js';

describe('the default deadline of a proxy\'s tunnel', { timeout: 120_000 }, () => {
  it('is 10 s for the API\'s requests and for notifications, whatever their timeout (60 s here)', async () => {
    const proxy = await startConnectProxy('hang');
    const settings = proxySettings({ HTTPS_PROXY: proxy.url });
    const api = new ApiClient({ baseUrl: 'https://api.invalid/api/v2', token: 'test-token-Secret123', logger: captureLogs().logger, timeoutMs: 60_000, retryBudgetMs: 0, proxy: settings });
    const http = new OutgoingHttp({ proxy: settings });
    try {
      const policy = { attempts: 1, initialMs: 1, maxMs: 1, jitter: 'none' as const, timeoutMs: 60_000 };
      const [fromApi, fromNotification] = await Promise.all([
        api.listPolicies('example-org').then(() => assert.fail('answered'), (e: unknown) => e),
        http.send({ method: 'POST', url: 'https://hooks.invalid/notify', headers: {}, body: '{}' }, policy).then(() => assert.fail('sent'), (e: unknown) => e),
      ]);
      assert.match(String((fromApi as Error).message), /the proxy established no tunnel within 10000 ms/);
      // The notification's failure names the tunnel's code: its deadline came before the try's 60 s.
      assert.match(String((fromNotification as Error).message), /proxy-tunnel-timeout/);
    } finally {
      await api.close();
      await http.close();
      await proxy.close();
    }
  });
});
