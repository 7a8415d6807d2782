/**
 * HTTP_PROXY, HTTPS_PROXY and NO_PROXY read once (either case, CIDR ranges, IPv6, loopback always), and the same
 * answer for the API client and for git: both behind one loopback proxy.
 */
import assert from 'node:assert/strict';
import { createServer, connect, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { describe, it } from 'node:test';
import { gitProxyEnv, proxyFor, proxySettings } from '../src/http/proxy.js';
import { openSource } from '../src/source/index.js';
import type { SourceConfig } from '../src/config/types.js';
import { runCli } from './helpers/cli.js';
import { ORG, TestEmulator } from './helpers/emulator.js';
import { startForwardProxy } from './helpers/forward-proxy.js';
import { gitHttpServer } from './helpers/git-http-server.js';
import { gitRepo } from './helpers/git-repo.js';
import { captureLogs } from './helpers/logs.js';
import { tempTree } from './helpers/temp-tree.js';

const PROXY = 'http://proxy.corp:3128';
const NATIVE = 'main = rule { true }\n';

function gitSourceConfig(url: string): SourceConfig {
  return {
    name: 'behind-proxy', organization: ORG, path: null, git: { url, ref: 'main', path: '.' }, schedule: '* * * * *', prune: false,
    ownership: 'marker', maxDeletes: 10, allowEmpty: false, adopt: false, maxAgentPools: 1, passTimeoutSeconds: 60,
  };
}

/** A TCP relay on another loopback address (127.0.0.2) to `origin`. */
async function relayOn(host: string, origin: string, t: { after: (fn: () => Promise<void>) => void }): Promise<string> {
  const target = new URL(origin);
  const sockets = new Set<Socket>();
  const server: Server = createServer((inbound) => {
    const outbound = connect(Number(target.port), target.hostname);
    for (const s of [inbound, outbound]) {
      sockets.add(s);
      s.on('error', () => undefined);
    }
    inbound.pipe(outbound).pipe(inbound);
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  t.after(() => new Promise<void>((resolve) => {
    for (const s of sockets) s.destroy();
    server.close(() => resolve());
  }));
  return `http://${host}:${(server.address() as AddressInfo).port}`;
}

describe('one reading of the proxy variables', { timeout: 120_000 }, () => {
  it('NO_PROXY: either case, names and subdomains, host:port, IPv4 and IPv6 addresses and ranges; loopback always', () => {
    const via = (url: string, env: Record<string, string>) => proxyFor(url, proxySettings({ HTTP_PROXY: PROXY, ...env }));
    const cases: Array<[string, Record<string, string>, boolean]> = [
      ['http://10.1.2.3/api/v2', { NO_PROXY: '10.0.0.0/8' }, false],
      ['http://10.1.2.3/api/v2', { no_proxy: '10.0.0.0/16' }, true],
      ['http://11.0.0.1/', { NO_PROXY: '10.0.0.0/8' }, true],
      ['http://[fd00::1]/', { NO_PROXY: 'fd00::/8' }, false],
      ['http://[fe80::1]/', { NO_PROXY: 'fd00::/8' }, true],
      ['http://[2001:db8::1]:8443/', { NO_PROXY: '[2001:db8::1]:8443' }, false],
      ['http://[2001:db8::1]:8444/', { NO_PROXY: '[2001:db8::1]:8443' }, true],
      ['http://[2001:db8::1]/', { NO_PROXY: '2001:db8::1' }, false],
      ['http://api.example.com/', { NO_PROXY: '.example.com' }, false],
      ['http://api.example.com/', { NO_PROXY: '*.example.com' }, false],
      ['http://example.com/', { NO_PROXY: 'example.com' }, false],
      ['http://notexample.com/', { NO_PROXY: 'example.com' }, true],
      ['http://api.example.com:8080/', { NO_PROXY: 'api.example.com:9090' }, true],
      ['http://api.example.com/', { NO_PROXY: '*' }, false],
      ['http://1.2.3.4/', { NO_PROXY: '2.3.4' }, true],
      // Loopback, all of it, whatever NO_PROXY says.
      ['http://127.0.0.1:8080/', {}, false],
      ['http://127.0.0.2:8080/', {}, false],
      ['http://127.255.0.9/', { NO_PROXY: 'other.corp' }, false],
      ['http://[::1]:8080/', {}, false],
      ['http://localhost:8080/', {}, false],
      ['http://api.localhost:8080/', {}, false],
      // Loopback in its IPv6 forms, as the Host check and a standby's forward read it (host-port.ts).
      ['http://[::ffff:127.0.0.1]:8080/', {}, false],
      ['http://[64:ff9b::127.0.0.1]:8080/', {}, false],
      ['http://[::ffff:10.0.0.1]:8080/', {}, true],
    ];
    for (const [url, env, proxied] of cases) assert.equal(via(url, env), proxied ? PROXY : null, `${url} with ${JSON.stringify(env)}`);
    // Either case of every variable; the lower case wins when both are set.
    assert.equal(proxyFor('https://a.corp/', proxySettings({ https_proxy: 'http://low:1', HTTPS_PROXY: 'http://up:1' })), 'http://low:1');
    assert.equal(proxyFor('http://a.corp/', proxySettings({ HTTP_PROXY: 'http://up:1' })), 'http://up:1');
    assert.equal(proxyFor('https://a.corp/', proxySettings({ HTTP_PROXY: 'http://up:1' })), 'http://up:1', 'https falls back to the http proxy');
    assert.equal(proxyFor('http://a.corp/', proxySettings({ HTTP_PROXY: PROXY, no_proxy: 'b.corp', NO_PROXY: 'a.corp' })), PROXY, 'no_proxy wins over NO_PROXY');
  });

  it('git is given the same answer as its own http.proxy: the proxy, or none at all', () => {
    const settings = proxySettings({ HTTP_PROXY: PROXY, NO_PROXY: '10.0.0.0/8' });
    assert.deepEqual(gitProxyEnv('http://git.corp/r.git', settings, 2), {
      GIT_CONFIG_COUNT: '3', GIT_CONFIG_KEY_2: 'http.proxy', GIT_CONFIG_VALUE_2: PROXY, NO_PROXY: settings.noProxy, no_proxy: settings.noProxy,
    });
    assert.equal(gitProxyEnv('http://10.0.0.5/r.git', settings, 0)['GIT_CONFIG_VALUE_0'], '', 'bypassed: an empty http.proxy, so git reads no proxy variable either');
    assert.equal(gitProxyEnv('http://127.0.0.2:8080/r.git', settings, 0)['GIT_CONFIG_VALUE_0'], '');
    assert.deepEqual(gitProxyEnv('git@github.com:o/r.git', settings, 0), {});
    assert.deepEqual(gitProxyEnv('http://git.corp/r.git', proxySettings({}), 0), {}, 'no variable: git keeps the proxy of its own config');
  });

  it('the API client and git behind one proxy (upper-case HTTP_PROXY, which git alone ignores), loopback straight to its server', async (t) => {
    const api = await TestEmulator.start();
    t.after(() => api.close());
    const repo = await gitRepo(t);
    const head = await repo.commit({ 'policies/fetched.native': NATIVE });
    const git = await gitHttpServer(t, { root: path.dirname(repo.dir) });
    const proxy = await startForwardProxy({ hosts: { 'api.invalid': api.origin, 'git.invalid': git.origin } });
    t.after(() => proxy.close());
    const env = { HTTP_PROXY: proxy.url, PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? '/tmp' };

    const checkout = await openSource(gitSourceConfig(`http://git.invalid/${path.basename(repo.dir)}`), { stateDir: await tempTree(t), env, logger: captureLogs().logger }).checkout();
    assert.equal(checkout.revision, head);
    assert.ok(proxy.seen.some((r) => r.url.startsWith('http://git.invalid/')), 'git went through the proxy');
    const dry = await runCli(['--dry-run', '--source-dir', checkout.dir, '--organization', ORG, '--api-url', 'http://api.invalid/api/v2', '--no-cache'], { env: { API_TOKEN: api.token, ...env } });
    assert.equal(dry.code, 0, dry.stderr + dry.stdout);
    assert.match(dry.stdout, /fetched/);
    assert.ok(proxy.seen.some((r) => r.url.startsWith('http://api.invalid/api/v2/')), 'the API client went through the proxy');

    // Another loopback address: the API and git are both reached straight, the token never goes to the proxy.
    proxy.seen.length = 0;
    const apiOn2 = await relayOn('127.0.0.2', api.origin, t);
    const gitOn2 = await relayOn('127.0.0.2', git.origin, t);
    const direct = await openSource(gitSourceConfig(`${gitOn2}/${path.basename(repo.dir)}`), { stateDir: await tempTree(t), env, logger: captureLogs().logger }).checkout();
    assert.equal(direct.revision, head);
    const dryDirect = await runCli(['--dry-run', '--source-dir', direct.dir, '--organization', ORG, '--api-url', `${apiOn2}/api/v2`, '--no-cache'], { env: { API_TOKEN: api.token, ...env } });
    assert.equal(dryDirect.code, 0, dryDirect.stderr + dryDirect.stdout);
    assert.deepEqual(proxy.seen.map((r) => r.url), [], 'nothing went through the proxy');
  });
});
