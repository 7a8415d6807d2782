/**
 * What a saved plan records of its run is compared with the applying run, and a difference writes nothing: another
 * max-agent-pools, another git location of the same commit, another base path of the same API origin. Each test
 * applies a plan whose changes a plan made now would make identically, so only the comparison stops the writes.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { once } from 'node:events';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { runCli } from './helpers/cli.js';
import { ORG } from './helpers/emulator.js';
import { gitRepo } from './helpers/git-repo.js';
import { useWorld } from './helpers/world.js';

const run = promisify(execFile);

/**
 * One origin in front of the emulator under two base paths, as a gateway routes tenants: `/<tenant>/api/v2/…` goes to
 * the emulator's `/api/v2/…`. Counts the requests of each tenant.
 */
class TenantGateway {
  readonly seen = new Map<string, number>();
  private server: Server;
  origin = '';

  constructor(upstream: string) {
    const target = new URL(upstream);
    this.server = createServer((incoming, outgoing) => {
      const match = /^\/([a-z]+)(\/api\/v2\/.*)$/.exec(incoming.url ?? '');
      if (match === null) {
        outgoing.writeHead(404).end();
        return;
      }
      this.seen.set(match[1]!, (this.seen.get(match[1]!) ?? 0) + 1);
      const forward = request({ host: target.hostname, port: target.port, method: incoming.method, path: match[2], headers: { ...incoming.headers, host: target.host } }, (answer) => {
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(outgoing);
      });
      forward.on('error', () => outgoing.destroy());
      incoming.pipe(forward);
    });
  }

  async start(): Promise<void> {
    this.server.listen(0, '127.0.0.1');
    await once(this.server, 'listening');
    this.origin = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    this.server.close();
    await once(this.server, 'close');
  }
}

describe('a saved plan applied with another record of its run writes nothing', () => {
  const fixture = useWorld();
  let gateway: TenantGateway;
  before(async () => {
    gateway = new TenantGateway(fixture.world.url);
    await gateway.start();
  });
  after(() => gateway.close());

  const env = () => ({ API_TOKEN: fixture.world.token, LOG_LEVEL: 'warn', STATE_DIR: fixture.world.stateDir });

  it('another max-agent-pools: refused, nothing written; the same: applied', async () => {
    const { world } = fixture;
    const dir = await fixture.repo({ 'policies/pools-limit.native': 'main = rule { true }\n' });
    const file = path.join(await fixture.repo({}), 'plan.json');
    const flags = ['--source-dir', dir, '--organization', ORG, '--api-url', world.url, '--source', 'pools-limit'];
    assert.equal((await runCli(['--dry-run', ...flags, '--max-agent-pools', '2', '--out', file], { env: env() })).code, 0);
    await world.clearRequests();
    const other = await runCli(['--reconcile', ...flags, '--max-agent-pools', '3', '--plan', file], { env: env() });
    assert.equal(other.code, 1, other.stdout + other.stderr);
    assert.deepEqual(await world.writes(), [], 'nothing written');
    assert.ok(!(await world.policies()).some((p) => p.name === 'pools-limit'));
    const same = await runCli(['--reconcile', ...flags, '--max-agent-pools', '2', '--plan', file], { env: env() });
    assert.equal(same.code, 0, same.stdout + same.stderr);
    assert.ok((await world.policies()).some((p) => p.name === 'pools-limit'), 'the plan applies with the settings it was made with');
  });

  it('another git location holding the same commit: refused, nothing written', async (t) => {
    const { world } = fixture;
    const repo = await gitRepo(t);
    await repo.commit({ 'declared/policies/git-moved.native': 'main = rule { true }\n' }, 'declare a policy');
    const work = await fixture.repo({});
    const copy = path.join(work, 'copy');
    // A clone: the same commit, byte for byte, at another URL.
    await run('git', ['clone', '--quiet', repo.dir, copy]);
    const config = async (url: string) => {
      const file = path.join(work, `config-${path.basename(url)}.yaml`);
      await writeFile(file, `api: { url: "${world.url}" }\nsources:\n  - { name: git-moved, organization: ${ORG}, git: { url: "${url}", ref: main, path: declared } }\n`);
      return file;
    };
    const plan = path.join(work, 'plan.json');
    assert.equal((await runCli(['--dry-run', '--config', await config(repo.dir), '--out', plan], { env: env() })).code, 0);
    await world.clearRequests();
    const moved = await runCli(['--reconcile', '--config', await config(copy), '--plan', plan], { env: env() });
    assert.equal(moved.code, 1, moved.stdout + moved.stderr);
    assert.deepEqual(await world.writes(), [], 'nothing written');
    assert.ok(!(await world.policies()).some((p) => p.name === 'git-moved'));
  });

  it('another base path of the same origin (another tenant behind one gateway): refused before any request', async () => {
    const { world } = fixture;
    const dir = await fixture.repo({ 'policies/tenant-a.native': 'main = rule { true }\n' });
    const file = path.join(await fixture.repo({}), 'plan.json');
    const flags = (tenant: string) => ['--source-dir', dir, '--organization', ORG, '--api-url', `${gateway.origin}/${tenant}/api/v2`, '--source', 'tenant-a'];
    const made = await runCli(['--dry-run', ...flags('alpha'), '--out', file], { env: env() });
    assert.equal(made.code, 0, made.stdout + made.stderr);
    assert.ok((gateway.seen.get('alpha') ?? 0) > 0, 'the plan was made through the first tenant\'s base path');
    await world.clearRequests();
    const other = await runCli(['--reconcile', ...flags('beta'), '--plan', file], { env: env() });
    assert.equal(other.code, 1, other.stdout + other.stderr);
    assert.equal(gateway.seen.get('beta') ?? 0, 0, 'no request went to the other base path');
    assert.deepEqual(await world.writes(), [], 'nothing written');
  });
});
