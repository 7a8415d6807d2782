import assert from 'node:assert/strict';
import { test } from 'node:test';
import { constantTimeEqual, verifyGithubSignature, verifyGitlabToken } from '../src/server/signature.js';
import { githubSignature } from './helpers/webhook-signature.js';
import { normalizeRepositoryUrl, sourcesForWebhook } from '../src/server/repository-match.js';
import { tempTree } from './helpers/temp-tree.js';
import { waitFor } from './helpers/wait.js';
import { recordingPass, startTestDaemon, testSource } from './helpers/daemon-harness.js';

const SECRET = 'webhook-secret-value-1234';
const PUSH = JSON.stringify({ ref: 'refs/heads/main', repository: { clone_url: 'https://github.com/acme/policies.git' } });

/**
 * Resolves once a pass triggered after the requests sent so far has run: any pass those requests had triggered would
 * have run first, or taken its place (a trigger while a pass is queued joins that pass).
 */
async function afterAPassAsked(harness: { daemon: { trigger(source: string, reason: 'sync'): void; whenIdle(): Promise<void> } }, calls: { trigger: string }[]): Promise<void> {
  harness.daemon.trigger('local', 'sync');
  await waitFor('the sync pass', () => (calls.some((c) => c.trigger === 'sync') ? true : undefined));
  await harness.daemon.whenIdle();
}

async function webhookDaemon(t: import('node:test').TestContext, env: NodeJS.ProcessEnv = { TEST_WEBHOOK_SECRET: SECRET }) {
  const { calls, pass } = recordingPass();
  const sources = [testSource('local', { path: await tempTree(t) })];
  const harness = await startTestDaemon(t, { sources, pass, env });
  await harness.daemon.whenIdle();
  assert.deepEqual(calls.map((c) => c.trigger), ['start-up']);
  return { ...harness, calls };
}

test('a GitHub push with a valid X-Hub-Signature-256 gets 202 and triggers a pass', async (t) => {
  const { post, calls, daemon, logs, get } = await webhookDaemon(t);
  const response = await post('/webhook', PUSH, { 'x-hub-signature-256': githubSignature(SECRET, PUSH), 'x-github-event': 'push' });
  assert.equal(response.status, 202);
  assert.deepEqual(await response.json(), { accepted: true, sources: ['local'] });
  await waitFor('the webhook pass', () => (calls.length === 2 ? true : undefined));
  await daemon.whenIdle();
  assert.equal(calls[1]?.trigger, 'webhook');
  const metrics = await (await get('/metrics')).text();
  assert.ok(!logs.text().includes(SECRET) && !metrics.includes(SECRET), 'the secret is in no log line and no metric');
});

test('a bad or missing signature gets 401 and triggers nothing', async (t) => {
  const harness = await webhookDaemon(t);
  const { post, calls, logs } = harness;
  const wrongSecret = githubSignature('webhook-secret-value-9999', PUSH);
  const tampered = githubSignature(SECRET, `${PUSH} `);
  const attempts: Array<Record<string, string>> = [
    { 'x-hub-signature-256': wrongSecret },
    { 'x-hub-signature-256': tampered },
    { 'x-hub-signature-256': 'sha256=' },
    { 'x-hub-signature-256': SECRET },
    { 'x-gitlab-token': 'not-the-secret' },
    { 'x-gitlab-token': `${SECRET}x` },
    {},
  ];
  for (const headers of attempts) {
    const response = await post('/webhook', PUSH, headers);
    assert.equal(response.status, 401, JSON.stringify(headers));
    assert.match(((await response.json()) as { error: string }).error, /^unauthorized/);
  }
  await afterAPassAsked(harness, calls);
  assert.deepEqual(calls.map((c) => c.trigger), ['start-up', 'sync'], 'no webhook pass ran');
  assert.ok(logs.messages().includes('authentication failed'));
  assert.ok(!logs.text().includes(SECRET));
});

test('a GitLab push with the right X-Gitlab-Token gets 202 and triggers a pass', async (t) => {
  const { post, calls } = await webhookDaemon(t);
  const body = JSON.stringify({ object_kind: 'push', project: { git_http_url: 'https://gitlab.com/acme/policies.git' } });
  const response = await post('/webhook', body, { 'x-gitlab-token': SECRET, 'x-gitlab-event': 'Push Hook' });
  assert.equal(response.status, 202);
  await waitFor('the webhook pass', () => (calls.length === 2 ? true : undefined));
  assert.equal(calls[1]?.trigger, 'webhook');
});

test('without a secret in the environment webhooks are refused, and the start-up log says so', async (t) => {
  const harness = await webhookDaemon(t, {});
  const { post, calls, logs } = harness;
  const response = await post('/webhook', PUSH, { 'x-hub-signature-256': githubSignature('', PUSH) });
  assert.equal(response.status, 503);
  await afterAPassAsked(harness, calls);
  assert.deepEqual(calls.map((c) => c.trigger), ['start-up', 'sync'], 'no webhook pass ran');
  assert.ok(logs.messages().some((m) => m.startsWith('webhooks are disabled: set TEST_WEBHOOK_SECRET')));
});

test('signature checks compare in constant time over equal-length digests', () => {
  const body = Buffer.from(PUSH);
  assert.equal(verifyGithubSignature(SECRET, body, githubSignature(SECRET, body)), true);
  assert.equal(verifyGithubSignature(SECRET, body, githubSignature(SECRET, body).toUpperCase().replace('SHA256=', 'sha256=')), true);
  assert.equal(verifyGithubSignature(SECRET, body, undefined), false);
  assert.equal(verifyGithubSignature(SECRET, body, 'sha256=00'), false, 'a short signature is refused, not thrown on');
  assert.equal(verifyGitlabToken(SECRET, SECRET), true);
  assert.equal(verifyGitlabToken(SECRET, SECRET.slice(0, -1)), false, 'a prefix of the secret is refused');
  assert.equal(verifyGitlabToken(SECRET, ''), false);
  assert.equal(constantTimeEqual('a', 'a'.repeat(1000)), false, 'different lengths compare without throwing');
});

test('a webhook triggers the git sources of the pushed repository, or every git source when it cannot tell', () => {
  const a = testSource('a', { git: { url: 'https://user:token@github.com/Acme/Policies.git', ref: 'main', path: '.' } });
  const b = testSource('b', { git: { url: 'git@github.com:acme/pools.git', ref: 'main', path: '.' } });
  const local = testSource('local', { path: '/srv/policies' });
  const body = (repository: object) => Buffer.from(JSON.stringify({ repository }));
  assert.deepEqual(sourcesForWebhook([a, b, local], body({ clone_url: 'https://github.com/acme/policies.git' })).map((s) => s.name), ['a']);
  assert.deepEqual(sourcesForWebhook([a, b, local], body({ ssh_url: 'git@github.com:acme/pools.git' })).map((s) => s.name), ['b']);
  assert.deepEqual(sourcesForWebhook([a, b, local], body({ clone_url: 'https://github.com/acme/other.git' })).map((s) => s.name), ['a', 'b']);
  assert.deepEqual(sourcesForWebhook([a, b, local], Buffer.from('not json')).map((s) => s.name), ['a', 'b']);
  assert.deepEqual(sourcesForWebhook([local], body({})).map((s) => s.name), ['local']);
  assert.equal(normalizeRepositoryUrl('ssh://git@gitlab.example.com:2222/g/r.git/'), 'gitlab.example.com:2222/g/r');
});
