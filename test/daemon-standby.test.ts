/**
 * A standby in the default tier: an in-process daemon whose election says another replica leads, with the leader's
 * address a recording server on loopback. The standby authenticates a request before anything (control and webhook),
 * hands a verified delivery to the leader once, with only the webhook protocols' headers (never GitLab's token),
 * only to an address the rule allows, and answers with the leader's own status, or 502 when the leader was not given it.
 */
import assert from 'node:assert/strict';
import { describe, it, type TestContext } from 'node:test';
import { NotLeaderError } from '../src/errors.js';
import type { Elector } from '../src/leader/index.js';
import { FORWARDED_HEADER, forwardAddressProblem } from '../src/server/webhook-forward.js';
import { recordingPass, startTestDaemon, testSource, type TestDaemon } from './helpers/daemon-harness.js';
import { startReceiver, type Answer, type TestReceiver } from './helpers/receiver.js';
import { tempTree } from './helpers/temp-tree.js';
import { githubSignature } from './helpers/webhook-signature.js';

const SECRET = 'webhook-Secret-standby-42';
const CONTROL = 'control-Token-standby-42';
const LEADER = 'replica-a';

/** An election in which `LEADER` holds the lease and writes `address` in the record; this replica stands by. */
function standingBy(address: string): Elector {
  return {
    identity: 'replica-b', leading: false, leader: LEADER, storeReached: true, leaderAddress: address, standingAside: null,
    fence() {
      throw new NotLeaderError('replica-b does not hold the lease');
    },
    onLeadingChange: () => undefined,
    advertise: () => undefined,
    start: () => undefined,
    stop: () => Promise.resolve(),
  };
}

async function standby(t: TestContext, answers: Answer[] = [202], options: { forwardToLoopback?: boolean; address?: string } = {}): Promise<{ daemon: TestDaemon; leader: TestReceiver; calls: unknown[] }> {
  const leader = await startReceiver(t, answers);
  const { calls, pass } = recordingPass();
  const daemon = await startTestDaemon(t, {
    sources: [testSource('platform', { path: await tempTree(t, {}) })],
    pass,
    election: standingBy(options.address ?? leader.url),
    env: { TEST_WEBHOOK_SECRET: SECRET, CONTROL_TOKEN: CONTROL },
    leaderElection: { forwardToLoopback: options.forwardToLoopback ?? true },
  });
  return { daemon, leader, calls };
}

const PUSH = JSON.stringify({ ref: 'refs/heads/main', after: 'c0ffee1', repository: { clone_url: 'https://example.com/x.git' } });
const GITLAB_PUSH = JSON.stringify({ object_kind: 'push', project: { git_http_url: 'https://example.com/x.git' } });

function github(body: string, extra: Record<string, string> = {}): Record<string, string> {
  return { 'x-github-event': 'push', 'x-github-delivery': 'delivery-1', 'x-github-hook-id': '42', 'x-hub-signature-256': githubSignature(SECRET, body), ...extra };
}

describe('a standby', { timeout: 60_000 }, () => {
  it('authenticates before anything: a forged webhook or control request is refused, names no leader, and reaches nobody', async (t) => {
    const { daemon, leader } = await standby(t);
    const forged = await daemon.post('/webhook', PUSH, github(PUSH, { 'x-hub-signature-256': githubSignature('wrong', PUSH) }));
    assert.equal(forged.status, 401);
    assert.ok(!(await forged.text()).includes(LEADER));
    const gitlab = await daemon.post('/webhook', GITLAB_PUSH, { 'x-gitlab-event': 'Push Hook', 'x-gitlab-token': 'wrong' });
    assert.equal(gitlab.status, 401);
    const unsigned = await daemon.post('/webhook', PUSH, { 'x-github-event': 'push' });
    assert.equal(unsigned.status, 401);
    assert.ok(!(await unsigned.text()).includes(LEADER));
    assert.deepEqual(leader.received, [], 'nothing unauthenticated was handed to the leader');
    const guessed = await daemon.post('/sources/platform/sync', '', { authorization: 'Bearer wrong' });
    assert.equal(guessed.status, 401);
    assert.ok(!(await guessed.text()).includes(LEADER));
    // Authenticated: the control command names the leader, the delivery is handed to it.
    const sync = await daemon.post('/sources/platform/sync', '', { authorization: `Bearer ${CONTROL}` });
    assert.equal(sync.status, 503);
    assert.match(((await sync.json()) as { error: string }).error, new RegExp(`stands by.*${LEADER}`));
    const good = await daemon.post('/webhook', PUSH, github(PUSH));
    assert.equal(good.status, 202, await good.clone().text());
    assert.equal(leader.received.length, 1);
  });

  it('hands a delivery on with only the webhook protocols\' headers, signed again', async (t) => {
    const { daemon, leader } = await standby(t);
    const identity = {
      'x-forwarded-for': '203.0.113.9', 'x-forwarded-user': 'admin@example.com', 'x-auth-request-email': 'admin@example.com', 'x-real-ip': '203.0.113.9',
      cookie: 'session=abc', authorization: 'Bearer someone-elses', 'x-custom-thing': 'yes',
    };
    const answer = await daemon.post('/webhook', PUSH, github(PUSH, { ...identity, 'x-github-hook-installation-target-type': 'repository' }));
    assert.equal(answer.status, 202);
    assert.deepEqual(await answer.json(), { handedTo: LEADER });
    const [handed] = leader.received;
    assert.ok(handed !== undefined);
    assert.equal(handed.path, '/webhook');
    assert.equal(handed.body, PUSH);
    for (const name of Object.keys(identity)) assert.equal(handed.headers[name], undefined, `${name} was handed on`);
    assert.equal(handed.headers['x-github-event'], 'push');
    assert.equal(handed.headers['x-github-delivery'], 'delivery-1');
    assert.equal(handed.headers['x-github-hook-id'], '42');
    assert.equal(handed.headers['x-github-hook-installation-target-type'], 'repository');
    assert.equal(handed.headers['content-type'], 'application/json');
    assert.equal(handed.headers['x-hub-signature-256'], githubSignature(SECRET, PUSH));
    assert.equal(handed.headers[FORWARDED_HEADER], 'replica-b');
  });

  it('never hands on GitLab\'s token: it signs the body instead', async (t) => {
    const { daemon, leader } = await standby(t);
    const answer = await daemon.post('/webhook', GITLAB_PUSH, { 'x-gitlab-event': 'Push Hook', 'x-gitlab-event-uuid': 'gitlab-1', 'x-gitlab-token': SECRET });
    assert.equal(answer.status, 202);
    const [handed] = leader.received;
    assert.ok(handed !== undefined, 'the delivery was handed on');
    assert.equal(handed.headers['x-gitlab-token'], undefined);
    assert.ok(!JSON.stringify(handed.headers).includes(SECRET), 'the secret is in no header handed on');
    assert.equal(handed.headers['x-gitlab-event'], 'Push Hook');
    assert.equal(handed.headers['x-gitlab-event-uuid'], 'gitlab-1');
    assert.equal(handed.headers['x-hub-signature-256'], githubSignature(SECRET, GITLAB_PUSH));
  });

  it('hands a delivery on once: one request to the leader, and never one already handed over', async (t) => {
    const { daemon, leader, calls } = await standby(t);
    assert.equal((await daemon.post('/webhook', PUSH, github(PUSH))).status, 202);
    assert.equal(leader.received.length, 1);
    const again = await daemon.post('/webhook', PUSH, github(PUSH, { [FORWARDED_HEADER]: 'replica-c' }));
    assert.equal(again.status, 503);
    assert.match(((await again.json()) as { error: string }).error, /stands by/);
    assert.equal(leader.received.length, 1, 'a delivery another replica handed over is not handed on again');
    assert.deepEqual(calls, [], 'the standby ran no pass');
  });

  it('answers with the leader\'s own status, and 502 when the leader was not given the delivery', async (t) => {
    const { daemon, leader } = await standby(t, [409, 503, 'drop']);
    assert.equal((await daemon.post('/webhook', PUSH, github(PUSH))).status, 409);
    assert.equal((await daemon.post('/webhook', PUSH, github(PUSH))).status, 503);
    const dropped = await daemon.post('/webhook', PUSH, github(PUSH));
    assert.equal(dropped.status, 502, 'a failed hand-over is a failure the sender shows and can deliver again');
    const body = (await dropped.json()) as { error: string; leader: string };
    assert.match(body.error, new RegExp(`could not hand the delivery to the leader, ${LEADER}`));
    assert.equal(body.leader, LEADER);
    assert.equal(leader.received.length, 3);
    assert.ok(daemon.logs.lines.some((line) => line.includes('webhook delivery not handed to the leader')));
  });

  it('hands nothing to a loopback address unless the configuration allows it', async (t) => {
    const { daemon, leader } = await standby(t, [202], { forwardToLoopback: false });
    const answer = await daemon.post('/webhook', PUSH, github(PUSH));
    assert.equal(answer.status, 502);
    assert.match(((await answer.json()) as { error: string }).error, /loopback address \(leader-election\.forward-to-loopback allows it\)/);
    assert.deepEqual(leader.received, []);
  });
});

describe('the addresses a standby hands deliveries to', () => {
  it('an IP literal outside loopback, link-local and the metadata addresses, loopback only when allowed', () => {
    const cases: Array<[string, boolean, string | null]> = [
      ['http://10.0.0.5:9090', false, null],
      ['https://[2001:db8::5]:9090', false, null],
      ['http://127.0.0.1:9090', true, null],
      ['http://[::1]:9090', true, null],
      ['http://127.0.0.1:9090', false, 'it is a loopback address (leader-election.forward-to-loopback allows it)'],
      ['http://127.9.9.9:9090', false, 'it is a loopback address (leader-election.forward-to-loopback allows it)'],
      ['http://[::1]:9090', false, 'it is a loopback address (leader-election.forward-to-loopback allows it)'],
      ['http://[::ffff:127.0.0.1]:9090', false, 'it is a loopback address (leader-election.forward-to-loopback allows it)'],
      ['http://2130706433:9090', false, 'it is a loopback address (leader-election.forward-to-loopback allows it)'],
      ['http://169.254.169.254/', true, 'it is a link-local, unspecified or metadata address'],
      ['http://169.254.10.1:9090', true, 'it is a link-local, unspecified or metadata address'],
      ['http://[fe80::1]:9090', true, 'it is a link-local, unspecified or metadata address'],
      ['http://[fd00:ec2::254]/', true, 'it is a link-local, unspecified or metadata address'],
      ['http://100.100.100.200/', true, 'it is a link-local, unspecified or metadata address'],
      ['http://192.0.0.192/', true, 'it is a link-local, unspecified or metadata address'],
      ['http://168.63.129.16/', true, 'it is a link-local, unspecified or metadata address'],
      ['http://[::ffff:169.254.169.254]/', true, 'it is a link-local, unspecified or metadata address'],
      // The other IPv6 forms that carry an IPv4 address: NAT64, IPv4-compatible, 6to4, in each spelling.
      ['http://[64:ff9b::169.254.169.254]/', true, 'it is a link-local, unspecified or metadata address'],
      ['http://[64:ff9b::a9fe:a9fe]/', true, 'it is a link-local, unspecified or metadata address'],
      ['http://[::169.254.169.254]/', true, 'it is a link-local, unspecified or metadata address'],
      ['http://[2002:a9fe:a9fe::1]/', true, 'it is a link-local, unspecified or metadata address'],
      ['http://[64:ff9b::100.100.100.200]/', true, 'it is a link-local, unspecified or metadata address'],
      ['http://[64:ff9b::127.0.0.1]:9090', false, 'it is a loopback address (leader-election.forward-to-loopback allows it)'],
      ['http://[::127.0.0.1]:9090', false, 'it is a loopback address (leader-election.forward-to-loopback allows it)'],
      ['http://[2002:7f00:1::]:9090', false, 'it is a loopback address (leader-election.forward-to-loopback allows it)'],
      ['http://[::ffff:7f00:1]:9090', false, 'it is a loopback address (leader-election.forward-to-loopback allows it)'],
      ['http://[64:ff9b::a00:5]:9090', false, null],
      ['http://[2002:a00:5::1]:9090', false, null],
      ['http://0.0.0.0:9090', true, 'it is a link-local, unspecified or metadata address'],
      ['http://leader.internal:9090', true, 'it names a host, not an IP address'],
      ['http://localhost:9090', true, 'it names a host, not an IP address'],
      ['file:///etc/passwd', true, 'it is not an http(s) URL'],
      ['not a url', true, 'it is not a URL'],
    ];
    for (const [address, allowLoopback, problem] of cases) assert.equal(forwardAddressProblem(address, allowLoopback), problem, `${address} (loopback ${allowLoopback ? 'allowed' : 'refused'})`);
  });
});
