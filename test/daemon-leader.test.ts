/**
 * Leader election end to end: daemons as real child processes, a real etcd (test/helpers/etcd.ts) and the emulator.
 * Requests carry the replica's name in their User-Agent, so the emulator's request log tells the daemons apart.
 * Short timings (lease 2s, renew deadline 1.5s, retry 0.5s); the tests wait for events, never for a duration.
 */
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { test, type TestContext } from 'node:test';
import type { LeadershipStatus } from '../src/server/standby.js';
import { escapeHtml } from '../src/server/html.js';
import { runCli } from './helpers/cli.js';
import { spawnDaemon, firstSourceStatus, type DaemonProcess, type LogLine } from './helpers/daemon-process.js';
import { parseExposition, sampleValue } from './helpers/daemon-prometheus.js';
import { POLICY_SET, TestEmulator } from './helpers/emulator.js';
import { startEtcd, type RunningEtcd } from './helpers/etcd.js';
import { REQUIRE_TAGS_SETTINGS, smallRepo } from './helpers/repos.js';
import { tempTree } from './helpers/temp-tree.js';
import { githubSignature } from './helpers/webhook-signature.js';
import { waitFor } from './helpers/wait.js';

const NEVER = '0 0 1 1 *';
const CONTROL = 'control-Token-42';
const SECRET = 'webhook-Secret-42';
const WAIT = 60_000;

interface Replicas {
  etcd: RunningEtcd;
  api: TestEmulator;
  dir: string;
  daemons: DaemonProcess[];
}

interface ReplicaOptions {
  apiUrl?: (emulator: TestEmulator) => Promise<string>;
  /** Each replica advertises the address of a relay of its own in front of it, which records what a standby hands it. */
  relays?: Relay[];
  concurrency?: number;
  /** lease-duration, renew-deadline, retry-period. @default 2s, 1500ms, 500ms */
  timings?: [string, string, string];
}

async function replicas(t: TestContext, count: number, options: ReplicaOptions = {}): Promise<Replicas> {
  const [lease, renew, retry] = options.timings ?? ['2s', '1500ms', '500ms'];
  const etcd = await startEtcd(t);
  const api = await TestEmulator.start();
  t.after(() => api.close());
  const dir = await tempTree(t, smallRepo());
  const config = {
    api: { url: options.apiUrl === undefined ? api.url : await options.apiUrl(api), ...(options.concurrency === undefined ? {} : { concurrency: options.concurrency }) },
    sources: [{ name: 'local', organization: 'example-org', path: dir, schedule: NEVER }],
    // The replicas run on one host: a standby hands webhook deliveries to the leader on loopback.
    'leader-election': { store: 'etcd', endpoints: [etcd.endpoint], 'lease-duration': lease, 'renew-deadline': renew, 'retry-period': retry, 'forward-to-loopback': true },
  };
  const env = { API_TOKEN: api.token, CONTROL_TOKEN: CONTROL, WEBHOOK_SECRET: SECRET };
  const relays = options.relays;
  if (relays !== undefined) for (let i = 0; i < count; i += 1) relays.push(await startRelay(t));
  const daemons = await Promise.all(Array.from({ length: count }, async (_, i) => {
    const relay = relays?.[i];
    const daemon = await spawnDaemon(t, config, relay === undefined ? env : { ...env, LEADER_ELECTION_ADDRESS: relay.url });
    if (relay !== undefined) relay.target = daemon.origin;
    return daemon;
  }));
  return { etcd, api, dir, daemons };
}

/** A loopback relay in front of a replica: notes each request's headers, then passes it to `target`. */
interface Relay {
  url: string;
  target: string | null;
  seen: IncomingMessage['headers'][];
}

async function startRelay(t: TestContext): Promise<Relay> {
  const relay: Relay = { url: '', target: null, seen: [] };
  const server = createServer((incoming, outgoing) => {
    relay.seen.push(incoming.headers);
    passOn(new URL(relay.target ?? 'http://127.0.0.1:1'), incoming, outgoing);
  });
  relay.url = await listening(t, server);
  return relay;
}

/** Passes a request on to `target`, and its answer back. */
function passOn(target: URL, incoming: IncomingMessage, outgoing: ServerResponse): void {
  const out = request({ host: target.hostname, port: target.port, method: incoming.method, path: incoming.url, headers: { ...incoming.headers, host: target.host } }, (answer) => {
    outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
    answer.pipe(outgoing);
  });
  out.on('error', () => outgoing.destroy());
  incoming.pipe(out);
}

/** `server` listening on a loopback port, closed when the test ends: its origin. */
async function listening(t: TestContext, server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => new Promise<void>((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  }));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** The replica's name, from its first log line about the election. */
function identity(daemon: DaemonProcess): string {
  const line = daemon.logs().find((l) => l.msg === 'leader election: trying to acquire the lease');
  if (line === undefined) throw new Error('the daemon did not log its identity');
  return String(line.identity);
}

async function leadership(daemon: DaemonProcess): Promise<LeadershipStatus> {
  return ((await (await daemon.get('/status')).json()) as { leadership: LeadershipStatus }).leadership;
}

/** Waits until exactly one of `daemons` leads, every one names it, and its start-up pass succeeded. */
async function settledLeader(daemons: DaemonProcess[]): Promise<DaemonProcess> {
  return waitFor('one leader, named by every replica, its first pass done', async () => {
    const views = await Promise.all(daemons.map(leadership));
    const leading = daemons.filter((_, i) => views[i]!.leading);
    if (leading.length !== 1) return undefined;
    const leader = leading[0]!;
    if (!views.every((v) => v.leader === identity(leader))) return undefined;
    return (await firstSourceStatus(leader)).result === 'success' ? leader : undefined;
  }, WAIT);
}

function logged(daemon: DaemonProcess, msg: string): Promise<LogLine> {
  return waitFor(`"${msg}" in the log`, () => daemon.logs().find((l) => l.msg === msg), WAIT);
}

async function requestsOf(api: TestEmulator, who: string) {
  return (await api.requests()).filter((r) => (r['user-agent'] ?? '').includes(`(instance ${who})`));
}

async function levelOf(api: TestEmulator, name: string): Promise<string | undefined> {
  return (await api.policies()).find((p) => p.name === name)?.['enforcement-level'];
}

/** Leadership intervals from the logs ("became leader" to "stopped leading" or the end): they must never overlap. */
function intervals(daemons: DaemonProcess[]): { who: number; from: number; to: number }[] {
  const all: { who: number; from: number; to: number }[] = [];
  daemons.forEach((d, who) => {
    let from: number | null = null;
    for (const line of d.logs()) {
      const at = Date.parse(String(line.time));
      if (line.msg === 'became leader') from = at;
      if ((line.msg === 'stopped leading' || line.msg === 'lease released') && from !== null) {
        // A replica stopped (SIGSTOP) logs this once continued; it stopped leading at its deadline, `leadingUntil`.
        all.push({ who, from, to: line.msg === 'stopped leading' ? Date.parse(String(line.leadingUntil)) : at });
        from = null;
      }
    }
    if (from !== null) all.push({ who, from, to: Infinity });
  });
  return all;
}

function assertNoOverlap(daemons: DaemonProcess[]): void {
  const spans = intervals(daemons).sort((a, b) => a.from - b.from);
  for (let i = 1; i < spans.length; i += 1) {
    assert.ok(spans[i]!.from >= spans[i - 1]!.to, `two leaders at once: ${JSON.stringify(spans)}`);
  }
}

test('three replicas: one leads and syncs; the standbys serve probes, metrics and /status naming it, and answer authenticated control commands with 503', async (t) => {
  const { api, dir, daemons } = await replicas(t, 3);
  const leader = await settledLeader(daemons);
  const id = identity(leader);
  // Every replica's folder watch sees the change; only the leader acts on it.
  await writeFile(path.join(dir, REQUIRE_TAGS_SETTINGS), 'enforcement-level: advisory\n');
  await waitFor('the leader to apply the change', async () => ((await levelOf(api, 'require-tags')) === 'advisory' ? true : undefined), WAIT);
  // On a busy machine a first leader may miss its renew deadline and hand over: the replicas that never led.
  const standbys = daemons.filter((d) => !d.logs().some((l) => l.msg === 'became leader'));
  assert.ok(standbys.length > 0);
  for (const standby of standbys) {
    assert.deepEqual({ ...(await leadership(standby)), identity: '' }, { identity: '', leading: false, leader: id, storeReached: true });
    // Where operators look: the status page and `policy-pool-sync status` say it stands by, and who leads.
    const page = await (await standby.get('/status.html')).text();
    assert.ok(page.includes(`<span class="badge idle">standby</span> This replica, <b>${escapeHtml(identity(standby))}</b>, stands by and does not sync: the leader is <b>${escapeHtml(id)}</b>.`), page);
    const shown = await runCli(['status', '--daemon', standby.origin]);
    assert.equal(shown.code, 0, shown.stderr);
    assert.equal(shown.stdout.split('\n')[0], `standby: this replica (${identity(standby)}) does not sync; the leader is ${id}`);
    const json = JSON.parse((await runCli(['status', '--daemon', standby.origin, '--output', 'json'])).stdout) as { leadership: LeadershipStatus };
    assert.deepEqual(json.leadership, await leadership(standby));
    assert.equal((await standby.get('/healthz')).status, 200);
    assert.equal((await standby.get('/readyz')).status, 200, 'a standby that reads the lease is ready to take over');
    assert.equal(sampleValue(parseExposition(await (await standby.get('/metrics')).text()), 'policy_pool_sync_leader'), 0);
    assert.equal((await firstSourceStatus(standby)).lastRunAt, null, 'a standby never syncs');
    assert.ok(!standby.logs().some((l) => l.msg === 'pass started'));
    // Authenticated first: a wrong token or signature is refused (and counted) as on any replica, naming nobody.
    const body = JSON.stringify({ ref: 'refs/heads/main', repository: { clone_url: 'https://example.com/x.git' } });
    const forged = await standby.post('/webhook', body, { 'x-github-event': 'push', 'x-hub-signature-256': githubSignature('wrong', body) });
    assert.equal(forged.status, 401);
    assert.ok(!(await forged.text()).includes(id));
    const guessed = await fetch(`${standby.origin}/sources/local/sync`, { method: 'POST', headers: { authorization: 'Bearer wrong' } });
    assert.equal(guessed.status, 401);
    assert.ok(!(await guessed.text()).includes(id));
    const sync = await fetch(`${standby.origin}/sources/local/sync`, { method: 'POST', headers: { authorization: `Bearer ${CONTROL}` } });
    assert.equal(sync.status, 503);
    assert.match(((await sync.json()) as { error: string }).error, new RegExp(`stands by.*${id}`));
    await logged(standby, `standing by; the leader is ${id}`);
    const failures = parseExposition(await (await standby.get('/metrics')).text()).samples.filter((x) => x.name === 'policy_pool_sync_auth_failures_total');
    assert.ok(failures.reduce((sum, x) => sum + x.value, 0) >= 2, 'the refused attempts were counted');
    await waitFor('the standby to log the leader', () => standby.logs().find((l) => l.msg === 'leader changed' && l.leader === id), WAIT);
    assert.deepEqual(await requestsOf(api, identity(standby)), [], 'no request of a standby reaches the API');
  }
  assert.equal(sampleValue(parseExposition(await (await leader.get('/metrics')).text()), 'policy_pool_sync_leader'), 1);
  assert.ok((await (await leader.get('/status.html')).text()).includes(`<span class="badge ok">leader</span> This replica, <b>${escapeHtml(id)}</b>, holds the lease and syncs.`));
  assert.equal((await runCli(['status', '--daemon', leader.origin])).stdout.split('\n')[0], `leader: this replica (${id}) holds the lease and syncs`);
  assert.ok((await requestsOf(api, id)).length > 0);
  assertNoOverlap(daemons);
});

test('the leader SIGKILLed: the standby takes over and applies what the repo now declares', async (t) => {
  const { api, dir, daemons } = await replicas(t, 2);
  const leader = await settledLeader(daemons);
  const standby = daemons.find((d) => d !== leader)!;
  leader.child.kill('SIGKILL');
  await leader.exited;
  await writeFile(path.join(dir, REQUIRE_TAGS_SETTINGS), 'enforcement-level: advisory\n');
  await logged(standby, 'became leader');
  await waitFor('the new leader to apply the change', async () => ((await levelOf(api, 'require-tags')) === 'advisory' ? true : undefined), WAIT);
  const writes = (await requestsOf(api, identity(standby))).filter((r) => r.method === 'PATCH');
  assert.ok(writes.length > 0, 'the change was applied by the new leader');
  assert.equal((await leadership(standby)).leading, true);
});

test('the leader SIGSTOPped: a standby takes over only after its renew deadline; continued, it stops leading and sends nothing', async (t) => {
  const { api, dir, daemons } = await replicas(t, 2);
  const leader = await settledLeader(daemons);
  const standby = daemons.find((d) => d !== leader)!;
  const before = (await requestsOf(api, identity(leader))).length;
  leader.child.kill('SIGSTOP');
  // Its folder watch sees this only once it is continued: by then it no longer holds the lease.
  await writeFile(path.join(dir, REQUIRE_TAGS_SETTINGS), 'enforcement-level: advisory\n');
  await logged(standby, 'became leader');
  await waitFor('the new leader to apply the change', async () => ((await levelOf(api, 'require-tags')) === 'advisory' ? true : undefined), WAIT);
  leader.child.kill('SIGCONT');
  const stopped = await logged(leader, 'stopped leading');
  assert.match(String(stopped.reason), /renew deadline/);
  assert.equal((await leadership(leader)).leading, false);
  await waitFor('the old leader to see the new one', async () => ((await leadership(leader)).leader === identity(standby) ? true : undefined), WAIT);
  // A pass is asked for meanwhile (its watch sees the second change); as a standby it starts none, and says so.
  const written = Date.now();
  await writeFile(path.join(dir, REQUIRE_TAGS_SETTINGS), 'enforcement-level: hard-mandatory\n');
  await waitFor('the old leader to ignore the trigger of its watch', () => leader.logs().find((l) => l.msg === 'trigger ignored: the source is suspended, or this replica stands by' && l.trigger === 'file-change' && Date.parse(String(l.time)) >= written), WAIT);
  await waitFor('the new leader to apply the second change', async () => ((await levelOf(api, 'require-tags')) === 'hard-mandatory' ? true : undefined), WAIT);
  assert.equal((await requestsOf(api, identity(leader))).length, before, 'no request of the old leader reached the API after it was stopped');
  assertNoOverlap(daemons);
});

test('SIGTERM: the leader releases the lease and the standby takes over without waiting for it to expire', async (t) => {
  const { daemons } = await replicas(t, 2);
  const leader = await settledLeader(daemons);
  const standby = daemons.find((d) => d !== leader)!;
  leader.child.kill('SIGTERM');
  assert.equal(await leader.exited, 0);
  assert.ok(leader.logs().some((l) => l.msg === 'lease released'));
  await logged(standby, 'became leader');
  const lines = standby.logs().map((l) => l.msg);
  // It saw the lease free (released), not expired: nobody held it before it did.
  assert.ok(lines.lastIndexOf('leader changed: nobody holds the lease') < lines.indexOf('became leader'));
  assert.ok(lines.includes('leader changed: nobody holds the lease'));
  assertNoOverlap(daemons);
});

test('etcd restarted under them: never two leaders, and passes resume', async (t) => {
  const { etcd, api, dir, daemons } = await replicas(t, 2);
  const leader = await settledLeader(daemons);
  await etcd.stop();
  // Past its renew deadline without etcd, the leader stops every pass.
  await logged(leader, 'stopped leading');
  await etcd.start();
  const next = await settledLeader(daemons);
  await writeFile(path.join(dir, REQUIRE_TAGS_SETTINGS), 'enforcement-level: advisory\n');
  await next.post('/sources/local/sync', '', { authorization: `Bearer ${CONTROL}` });
  await waitFor('a pass after the restart to apply the change', async () => ((await levelOf(api, 'require-tags')) === 'advisory' ? true : undefined), WAIT);
  assertNoOverlap(daemons);
});

/** The passes of the leader's history that a webhook started. */
async function webhookPasses(daemon: DaemonProcess): Promise<number> {
  const body = (await (await daemon.get('/status?history=1')).json()) as { sources: { history?: { trigger: string }[] }[] };
  return (body.sources[0]?.history ?? []).filter((p) => p.trigger === 'webhook').length;
}

test('webhook deliveries sent to the standby only: each is handed to the leader, which verifies it, runs a pass for it and drops a repeat', async (t) => {
  const relays: Relay[] = [];
  const { daemons } = await replicas(t, 2, { relays });
  const leader = await settledLeader(daemons);
  const standby = daemons.find((d) => d !== leader)!;
  const handed = relays[daemons.indexOf(leader)]!.seen;
  const body = (n: number) => JSON.stringify({ ref: 'refs/heads/main', after: `c0ffee${n}`, repository: { clone_url: 'https://example.com/x.git' } });
  for (let n = 1; n <= 3; n += 1) {
    const answer = await standby.post('/webhook', body(n), { 'x-github-event': 'push', 'x-github-delivery': `delivery-${n}`, 'x-hub-signature-256': githubSignature(SECRET, body(n)) });
    assert.equal(answer.status, 202, await answer.clone().text());
    assert.deepEqual(await answer.json(), { accepted: true, sources: ['local'], handedTo: identity(leader) });
    await waitFor(`the leader's pass for delivery ${n}`, async () => ((await webhookPasses(leader)) >= n ? true : undefined), WAIT);
  }
  // GitLab's token is the secret itself: the standby signs the body instead of handing the token on.
  const gitlab = JSON.stringify({ object_kind: 'push', project: { git_http_url: 'https://example.com/x.git' } });
  const fromGitlab = await standby.post('/webhook', gitlab, { 'x-gitlab-event': 'Push Hook', 'x-gitlab-event-uuid': 'gitlab-1', 'x-gitlab-token': SECRET });
  assert.equal(fromGitlab.status, 202);
  await waitFor('the leader\'s pass for the GitLab delivery', async () => ((await webhookPasses(leader)) >= 4 ? true : undefined), WAIT);
  assert.equal(handed.length, 4, 'each delivery reached the leader through its advertised address, once');
  const gitlabHanded = handed.find((h) => h['x-gitlab-event-uuid'] === 'gitlab-1');
  assert.ok(gitlabHanded !== undefined);
  assert.equal(gitlabHanded['x-gitlab-token'], undefined, 'the token is not handed on');
  assert.equal(gitlabHanded['x-hub-signature-256'], githubSignature(SECRET, gitlab), 'the body is signed instead');
  assert.ok(handed.every((h) => !JSON.stringify(h).includes(SECRET)), 'the secret is in no header handed on');
  // Redelivered: the leader has seen it.
  const again = await standby.post('/webhook', body(1), { 'x-github-event': 'push', 'x-github-delivery': 'delivery-1', 'x-hub-signature-256': githubSignature(SECRET, body(1)) });
  assert.equal(again.status, 200);
  assert.equal(((await again.json()) as { duplicate?: boolean }).duplicate, true);
  // A log line travels on the process's stderr, not with the answer: waited for, then counted.
  const count = (daemon: DaemonProcess, msg: string, atLeast: number) =>
    waitFor(`${atLeast} "${msg}" lines`, () => {
      const n = daemon.logs().filter((l) => l.msg === msg).length;
      return n >= atLeast ? n : undefined;
    }, WAIT);
  assert.equal(await count(leader, 'webhook accepted', 4), 4);
  assert.equal(await count(standby, 'webhook delivery handed to the leader', 5), 5);
  assert.equal((await firstSourceStatus(standby)).lastRunAt, null, 'the standby ran no pass');
});

/**
 * A loopback proxy in front of the emulator that answers the first request `refuse` matches itself, with a 503 that
 * asks for a retry in a second: the client then waits on a timer with the write still to send. Notes every
 * request it receives, with its User-Agent.
 */
async function refusingProxy(t: TestContext, upstream: string, refuse: (method: string, url: string) => boolean) {
  const target = new URL(upstream);
  const seen: { method: string; url: string; agent: string }[] = [];
  let armed = true;
  let onRefused: () => void = () => undefined;
  const refused = new Promise<void>((resolve) => (onRefused = resolve));
  const server = createServer((incoming, outgoing) => {
    seen.push({ method: incoming.method ?? '', url: incoming.url ?? '', agent: String(incoming.headers['user-agent'] ?? '') });
    if (armed && refuse(incoming.method ?? '', incoming.url ?? '')) {
      armed = false;
      incoming.resume();
      outgoing.once('finish', onRefused);
      outgoing.writeHead(503, { 'retry-after': '1', 'content-type': 'application/vnd.api+json' });
      outgoing.end(JSON.stringify({ errors: [{ status: '503', title: 'unavailable' }] }));
      return;
    }
    passOn(target, incoming, outgoing);
  });
  return { url: `${await listening(t, server)}${target.pathname}`, seen, refused };
}

test('a leader stopped while it waits to send a write: once continued, it sends nothing more, and its pass ends handed over, not failed', async (t) => {
  let proxy!: Awaited<ReturnType<typeof refusingProxy>>;
  const { api, dir, daemons } = await replicas(t, 2, {
    concurrency: 1,
    // The retry the 503 asks for (1 s) is due well before the renew deadline (at least 2.5 s after the 503).
    timings: ['4s', '3s', '500ms'],
    apiUrl: async (emulator) => (proxy = await refusingProxy(t, emulator.url, (method, url) => method === 'PATCH' && url.includes('/policies/'))).url,
  });
  const leader = await settledLeader(daemons);
  const standby = daemons.find((d) => d !== leader)!;
  const id = identity(leader);
  // A policy changes: its write is refused with a 503, and the leader is stopped while it waits to send it again.
  await writeFile(path.join(dir, REQUIRE_TAGS_SETTINGS), 'enforcement-level: advisory\n');
  await writeFile(path.join(dir, 'policies/storage/deny-public.yaml'), `query: data.terraform.storage.deny_public_buckets\nenforcement-level: advisory\npolicy-sets: [${POLICY_SET}]\n`);
  // Stopped as soon as it says it waits to send the write again.
  await new Promise<void>((resolve) => {
    const watch = (chunk: Buffer) => {
      if (!chunk.toString('utf8').includes('"msg":"api request failed, retrying"')) return;
      leader.child.kill('SIGSTOP');
      leader.child.stderr?.off('data', watch);
      resolve();
    };
    leader.child.stderr?.on('data', watch);
  });
  await logged(standby, 'became leader');
  await waitFor('the new leader to apply both changes', async () => ((await levelOf(api, 'require-tags')) === 'advisory' && (await levelOf(api, 'deny-public')) === 'advisory' ? true : undefined), WAIT);
  const before = proxy.seen.filter((r) => r.agent.includes(`(instance ${id})`)).length;
  // Continued, its timer to send the write again is due before the one of its renew deadline: the fence stops it.
  leader.child.kill('SIGCONT');
  const ended = await logged(leader, 'pass handed over: this replica lost the lease, the new leader runs its own');
  assert.equal(ended.level, 30);
  const after = proxy.seen.filter((r) => r.agent.includes(`(instance ${id})`));
  assert.equal(after.length, before, `the old leader sent more after it was continued: ${JSON.stringify(after.slice(before))}`);
  // A handover, not a failure: no failed pass, no retry, no failure counted.
  assert.ok(!leader.logs().some((l) => l.msg === 'pass failed' || l.msg === 'pass failed; retrying after back-off'), JSON.stringify(leader.logs().filter((l) => l.level >= 40)));
  const status = await firstSourceStatus(leader);
  assert.equal(status.result, 'handed-over');
  assert.equal(status.error, null);
  assert.ok(Date.parse(status.nextRunAt ?? '') - Date.now() > 24 * 3600_000, `no retry is scheduled on a replica that stands by, only the schedule: ${status.nextRunAt}`);
  const metrics = parseExposition(await (await leader.get('/metrics')).text());
  assert.equal(sampleValue(metrics, 'policy_pool_sync_passes_total', { source: 'local', result: 'failure' }), 0);
  assert.equal(sampleValue(metrics, 'policy_pool_sync_passes_total', { source: 'local', result: 'handed-over' }), 1);
  assertNoOverlap(daemons);
});

test('two deployments that sync other organizations under one lease name: the second says so and is not ready while the first leads, and takes over once it has gone', async (t) => {
  const etcd = await startEtcd(t);
  const api = await TestEmulator.start();
  t.after(() => api.close());
  const dir = await tempTree(t, smallRepo());
  const election = { store: 'etcd', endpoints: [etcd.endpoint], 'lease-duration': '2s', 'renew-deadline': '1500ms', 'retry-period': '500ms' };
  const env = { API_TOKEN: api.token };
  const first = await spawnDaemon(t, { api: { url: api.url }, sources: [{ name: 'local', organization: 'example-org', path: dir, schedule: NEVER }], 'leader-election': election }, env);
  await settledLeader([first]);
  const other = await spawnDaemon(t, { api: { url: api.url }, sources: [{ name: 'local', organization: 'other-org', path: dir, schedule: NEVER }], 'leader-election': election }, env);
  const said = await waitFor('the other to stand aside', () => other.logs().find((l) => String(l.msg).startsWith('standing aside: the lease is held by a foreign holder: its holder syncs other sources or organizations')), WAIT);
  assert.equal(said.leader, identity(first));
  assert.equal((await other.get('/readyz')).status, 503);
  assert.match(String((await leadership(other)).standingAside), /another deployment uses the same lease name; give each deployment its own leader-election lease-name/);
  assert.equal((await first.get('/readyz')).status, 200);
  assert.ok(!other.logs().some((l) => l.msg === 'became leader'));
  // The first deployment gone without releasing the lease: once its record expired, the other takes it.
  first.child.kill('SIGKILL');
  await first.exited;
  await logged(other, 'became leader');
  assert.equal(other.logs().filter((l) => String(l.msg).startsWith('standing aside')).length, 1, 'said once');
  assert.equal((await leadership(other)).standingAside, undefined);
});
