/**
 * Every mode of the built binary (`node dist/cli.js`) once, in a child process of its own: what the process adds to
 * the code the rest of the suite runs in its own process (test/helpers/cli.ts): the arguments and environment of a
 * real process, its stdout and stderr, its exit code once the run has settled, its signals. End-to-end tier.
 */
import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { stringify } from 'yaml';
import { startCli, type CliRun } from './helpers/cli.js';
import { ORG } from './helpers/emulator.js';
import { waitFor } from './helpers/wait.js';
import { useWorld } from './helpers/world.js';

const POLICY = { 'policies/binary.native': 'main = rule { true }\n' };

describe('the built binary', () => {
  const fixture = useWorld();
  const run = (args: string[], env: Record<string, string> = {}): Promise<CliRun> =>
    startCli(args, { env: { API_TOKEN: fixture.world.token, LOG_LEVEL: 'warn', STATE_DIR: fixture.world.stateDir, ...env }, timeoutMs: 120_000 }).done;
  const flags = (dir: string) => ['--source-dir', dir, '--organization', ORG, '--api-url', fixture.world.url];

  it('--validate, --dry-run --out, --show, --reconcile, --export: each exits with its code and prints its output', async () => {
    const { world } = fixture;
    const dir = await fixture.repo(POLICY);
    const file = join(await fixture.repo({}), 'plan.json');
    const valid = await run(['--validate', '--source-dir', dir]);
    assert.equal(valid.code, 0, valid.stderr);
    assert.match(valid.stdout, /valid \(1 policy/);
    const planned = await run(['--dry-run', ...flags(dir), '--out', file, '--detailed-exitcode']);
    assert.equal(planned.code, 2, planned.stderr);
    assert.match(planned.stdout, /\+ .*binary/);
    const shown = await run(['--show', file, '--output', 'json']);
    assert.equal(shown.code, 0, shown.stderr);
    assert.deepEqual(JSON.parse(shown.stdout), JSON.parse(await readFile(file, 'utf8')));
    const applied = await run(['--reconcile', ...flags(dir), '--plan', file]);
    assert.equal(applied.code, 0, applied.stderr);
    assert.match(applied.stdout, /Apply complete! Resources: 1 created/);
    assert.ok((await world.policies()).some((p) => p.name === 'binary'));
    const exported = join(await fixture.repo({}), 'exported');
    const exportRun = await run(['--export', exported, '--organization', ORG, '--api-url', world.url]);
    assert.equal(exportRun.code, 0, exportRun.stderr);
    assert.equal(await readFile(join(exported, 'policies/binary.native'), 'utf8'), POLICY['policies/binary.native']);
    const wrong = await run(['--dry-run']);
    assert.equal(wrong.code, 1);
    assert.match(wrong.stderr, /^error: /);
    assert.ok(!`${planned.stdout}${planned.stderr}${applied.stdout}${applied.stderr}`.includes(world.token), 'the token is never printed');
  });

  it('an invalid repo: --validate, --dry-run and --reconcile exit 1 naming the file and line, and send no request', async () => {
    const { world } = fixture;
    const dir = await fixture.repo({ 'policies/p.native': 'main = rule { true }\n', 'policies/p.yaml': 'enforcement-level: mandatory\n' });
    await world.clearRequests();
    for (const mode of ['--validate', '--dry-run', '--reconcile']) {
      const refused = await run([mode, ...flags(dir), '--prune', '--source', 'default']);
      assert.equal(refused.code, 1, `${mode}: ${refused.stdout}${refused.stderr}`);
      assert.match(refused.stdout + refused.stderr, /policies\/p\.yaml:1/, mode);
    }
    assert.deepEqual(await world.requests(), []);
  });

  it('--emulator serves until SIGTERM, then exits 0', async (t) => {
    const { child, done } = startCli(['--emulator', '--port', '0'], { env: { LOG_LEVEL: 'error' } });
    t.after(() => child.kill('SIGKILL'));
    let stdout = '';
    child.stdout?.on('data', (chunk: string) => (stdout += chunk));
    const { url, token } = await waitFor('the emulator\'s URL', () => (stdout.includes('\n') ? (JSON.parse(stdout.split('\n')[0] ?? '') as { url: string; token: string }) : undefined));
    const answer = await fetch(`${url}/organizations/example-org/policies`, { headers: { authorization: `Bearer ${token}` } });
    assert.equal(answer.status, 200);
    child.kill('SIGTERM');
    assert.equal((await done).code, 0);
  });

  it('the daemon (--config FILE) passes, answers the status command, and exits 0 on SIGTERM', async (t) => {
    const { world } = fixture;
    const dir = await fixture.repo({ 'policies/daemon.native': 'main = rule { true }\n' });
    const config = join(await fixture.repo({}), 'daemon.yaml');
    await writeFile(config, stringify({
      listen: '127.0.0.1:0', 'state-dir': join(await fixture.repo({}), 'state'), api: { url: world.url },
      sources: [{ name: 'local', organization: ORG, path: dir, schedule: '0 0 1 1 *' }],
    }));
    const { child, done } = startCli(['--config', config], { env: { API_TOKEN: world.token, LOG_LEVEL: 'info' } });
    t.after(() => child.kill('SIGKILL'));
    let stderr = '';
    child.stderr?.on('data', (chunk: string) => (stderr += chunk));
    const line = (msg: string) => stderr.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => l['msg'] === msg);
    const listening = await waitFor('the daemon to listen', () => line('daemon listening'));
    await waitFor('the start-up pass', () => line('pass finished') ?? line('pass failed'));
    assert.ok(line('pass finished') !== undefined, stderr);
    const status = await run(['status', '--daemon', String(listening['listen'])]);
    assert.equal(status.code, 0, status.stderr);
    assert.match(status.stdout, /^SOURCE\s+REVISION/);
    child.kill('SIGTERM');
    assert.equal((await done).code, 0, stderr);
    assert.ok(line('daemon stopped') !== undefined);
  });
});

describe('the built daemon whose log is read late', () => {
  const organizations = Array.from({ length: 24 }, (_, i) => `backlog-org-${String(i).padStart(2, '0')}`);
  const fixture = useWorld({ organizations: organizations.map((name) => ({ name })) });

  it('goes on passing and answering /healthz while its stderr pipe is full, and writes every line once it is read', async (t) => {
    const { world } = fixture;
    const policies = Object.fromEntries(Array.from({ length: 20 }, (_, p) => [`policies/p${p}.native`, 'main = rule { true }\n']));
    const sources = [];
    for (const [i, organization] of organizations.entries()) {
      sources.push({ name: `s${i}`, organization, path: await fixture.repo(policies), schedule: '0 0 1 1 *' });
    }
    const config = join(await fixture.repo({}), 'daemon.yaml');
    await writeFile(config, stringify({ listen: '127.0.0.1:0', 'state-dir': join(await fixture.repo({}), 'state'), api: { url: world.url }, sources }));
    // Debug lines of 24 start-up passes: several times the 64 KiB a pipe holds.
    const { child, done } = startCli(['--config', config], { env: { API_TOKEN: world.token, LOG_LEVEL: 'debug' } });
    t.after(() => child.kill('SIGKILL'));
    let stderr = '';
    child.stderr?.on('data', (chunk: string) => (stderr += chunk));
    const listening = await waitFor('the daemon to listen', () => /"listen":"(http:[^"]+)"/.exec(stderr)?.[1]);
    // From here nobody reads its stderr: the pipe fills, and the daemon's writes to it find no room.
    child.stderr?.pause();
    const readBeforeThePasses = stderr.length;
    const status = await waitFor('every source\'s start-up pass', async () => {
      if (child.exitCode !== null) return null;
      const body = (await (await fetch(`${listening}/status`)).json()) as { sources: Array<{ lastPass: { result: string } | null }> };
      return body.sources.every((s) => s.lastPass !== null) ? body : undefined;
    }, 120_000);
    assert.notEqual(status, null, `the daemon ended (exit ${String(child.exitCode)}) while its stderr was not read`);
    assert.deepEqual(status?.sources.map((s) => s.lastPass?.result), organizations.map(() => 'success'));
    assert.equal(child.exitCode, null, 'the daemon is still running');
    assert.equal((await fetch(`${listening}/healthz`)).status, 200);
    child.stderr?.resume();
    const finished = () => stderr.split('\n').filter((l) => l.includes('"msg":"pass finished"')).length;
    await waitFor('every pass\'s line, once stderr is read', () => (finished() === organizations.length ? true : undefined));
    assert.ok(stderr.length - readBeforeThePasses > 4 * 65_536, `the passes wrote ${stderr.length - readBeforeThePasses} bytes: more than the pipe holds`);
    child.kill('SIGTERM');
    assert.equal((await done).code, 0, stderr.slice(-2000));
    assert.deepEqual(stderr.split('\n').filter((l) => l !== '' && !l.startsWith('{')), [], 'every line is whole JSON');
    assert.match(stderr, /"msg":"daemon stopped"/);
  });
});
