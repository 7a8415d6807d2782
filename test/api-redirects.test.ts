import assert from 'node:assert/strict';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { ApiClient } from '../src/api/client.js';
import { redirectTarget } from '../src/api/redirects.js';
import { silentLogger } from '../src/logger.js';
import { ORG, TestEmulator } from './helpers/emulator.js';

interface Seen {
  method: string;
  url: string;
  authorization: string | undefined;
}

/**
 * A front in front of the emulator: /moved/... answers 301 to the same path without /moved (same origin), /loop/...
 * redirects to itself, /away/... answers 307 to another origin (localhost instead of 127.0.0.1); /api/v2/... and
 * /elsewhere/... are passed to the emulator.
 */
async function startFront(upstream: string): Promise<{ origin: string; seen: Seen[]; close(): Promise<void> }> {
  const up = new URL(upstream);
  const seen: Seen[] = [];
  let port = 0;
  const server: Server = createServer((incoming, outgoing) => {
    const url = incoming.url ?? '/';
    seen.push({ method: incoming.method ?? '', url, authorization: incoming.headers.authorization });
    const redirect = (status: number, location: string) => {
      outgoing.writeHead(status, { location });
      outgoing.end();
    };
    if (url.startsWith('/moved/')) return redirect(301, url.slice('/moved'.length));
    if (url.startsWith('/loop/')) return redirect(302, url);
    if (url.startsWith('/away/')) return redirect(307, `http://localhost:${port}/elsewhere${url.slice('/away'.length)}`);
    const path = url.startsWith('/elsewhere/') ? url.slice('/elsewhere'.length) : url;
    const forward = request({ host: up.hostname, port: up.port, method: incoming.method, path, headers: { ...incoming.headers, host: up.host } }, (answer) => {
      outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(outgoing);
    });
    forward.on('error', () => outgoing.destroy());
    incoming.pipe(forward);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
  return {
    origin: `http://127.0.0.1:${port}`,
    seen,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

describe('redirects answering API calls', () => {
  let emulator: TestEmulator;
  let front: Awaited<ReturnType<typeof startFront>>;
  before(async () => {
    emulator = await TestEmulator.start();
    front = await startFront(emulator.origin);
  });
  after(async () => {
    await front.close();
    await emulator.close();
  });
  const client = (prefix: string) => new ApiClient({ baseUrl: `${front.origin}${prefix}/api/v2`, token: emulator.token, logger: silentLogger(), maxRetries: 0 });

  it('a GET follows a redirect within the same origin, with the token', async () => {
    front.seen.length = 0;
    const api = client('/moved');
    const pools = await api.listAgentPools(ORG);
    await api.close();
    assert.deepEqual(pools.pools, []);
    assert.deepEqual(front.seen.map((s) => [s.method, s.url.split('?')[0], s.authorization !== undefined]), [
      ['GET', `/moved/api/v2/organizations/${ORG}/agent-pools`, true],
      ['GET', `/api/v2/organizations/${ORG}/agent-pools`, true],
    ]);
  });

  it('a redirect to another origin is an error naming the Location and --api-url; the token goes nowhere', async () => {
    front.seen.length = 0;
    const api = client('/away');
    await assert.rejects(api.listAgentPools(ORG), (error: Error) => {
      assert.match(error.message, /redirected \(307\) to http:\/\/localhost:\d+\/elsewhere\/api\/v2\/organizations\/example-org\/agent-pools\?…, outside http:\/\/127\.0\.0\.1:\d+/);
      assert.match(error.message, /token is never sent to another origin: fix --api-url/);
      return true;
    });
    await api.close();
    assert.deepEqual(front.seen.filter((s) => s.url.startsWith('/elsewhere/')), []);
  });

  it('a redirect answering a write is an error naming both URLs, never repeated', async () => {
    front.seen.length = 0;
    const api = client('/moved');
    await assert.rejects(api.updateAgentPool('apool-x', { name: 'x', organizationScoped: true }), (error: Error) => {
      assert.match(error.message, /redirect from http:\/\/127\.0\.0\.1:\d+\/moved\/api\/v2\/agent-pools\/apool-x to http:\/\/127\.0\.0\.1:\d+\/api\/v2\/agent-pools\/apool-x; a write is never repeated/);
      return true;
    });
    await api.close();
    assert.deepEqual(front.seen.map((s) => s.method), ['PATCH']);
  });

  it('at most 5 redirects are followed', async () => {
    front.seen.length = 0;
    const api = client('/loop');
    await assert.rejects(api.listAgentPools(ORG), /redirected more than 5 times/);
    await api.close();
    assert.equal(front.seen.length, 6);
  });

  it('from https to http is another origin', () => {
    const req = { method: 'GET' as const, url: 'https://api.example.com/api/v2/ping' };
    const response = { status: 301, headers: { location: 'http://api.example.com/api/v2/ping' }, text: '', request: { method: 'GET', path: '/ping' } };
    assert.throws(() => redirectTarget(req, response, new URL('https://api.example.com/api/v2'), 0), /outside https:\/\/api\.example\.com/);
  });
});
