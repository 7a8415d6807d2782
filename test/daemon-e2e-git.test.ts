import assert from 'node:assert/strict';
import { test } from 'node:test';
import { githubSignature } from './helpers/webhook-signature.js';
import { declaredTree, gitRepo, sleep, waitFor } from './helpers/daemon-fixtures.js';
import { descriptionOf, firstSourceStatus as status, spawnDaemon, startTestApi } from './helpers/daemon-process.js';

const SECRET = 'e2e-webhook-secret';
const NEVER = '0 0 1 1 *';

function gitSource(url: string, schedule: string) {
  return { name: 'platform', organization: 'example-org', git: { url, ref: 'main', path: '.' }, schedule };
}

test('git source: start-up applies the commit, a pushed commit is applied on the next tick, /status shows it', async (t) => {
  const api = await startTestApi(t);
  const repo = await gitRepo(t);
  const first = await repo.commit(declaredTree(), 'initial policies');
  const daemon = await spawnDaemon(
    t,
    { api: { url: api.emulator.url, 'rate-limit': 'auto' }, sources: [gitSource(`file://${repo.dir}`, '*/2 * * * * *')] },
    { API_TOKEN: api.emulator.token },
  );
  await waitFor('the first commit applied', async () => ((await status(daemon)).lastAppliedRevision === first ? true : undefined));
  assert.equal(descriptionOf(await api.policies(), 'require-tags'), 'Tags are required.');
  assert.equal((await daemon.get('/readyz')).status, 200);

  const second = await repo.commit({ 'policies/require-tags.yaml': 'description: Tags are required everywhere.\nenforcement-level: soft-mandatory\n' });
  await waitFor('the pushed commit applied', async () => (descriptionOf(await api.policies(), 'require-tags') === 'Tags are required everywhere.' ? true : undefined), 8_000);
  const after = await waitFor('the status of the new commit', async () => {
    const s = await status(daemon);
    return s.lastAppliedRevision === second && !s.running ? s : undefined;
  });
  assert.equal(after.lastAttemptedRevision, second);
  assert.equal(after.result, 'success');
  assert.equal(after.lastTrigger, 'schedule');
  assert.equal((await api.policies()).find((p) => p.name === 'require-tags')?.['enforcement-level'], 'soft-mandatory');
});

test('git source: a signed webhook applies a new commit within 5 s; a bad signature gets 401 and applies nothing', async (t) => {
  const api = await startTestApi(t);
  const repo = await gitRepo(t);
  const first = await repo.commit(declaredTree());
  const daemon = await spawnDaemon(
    t,
    { api: { url: api.emulator.url }, sources: [gitSource(repo.dir, NEVER)], 'webhook-secret-env': 'HOOK_SECRET' },
    { API_TOKEN: api.emulator.token, HOOK_SECRET: SECRET },
  );
  await waitFor('the first commit applied', async () => ((await status(daemon)).lastAppliedRevision === first ? true : undefined));
  const second = await repo.commit({ 'policies/require-tags.yaml': 'description: Changed by a push.\n' });
  const body = JSON.stringify({ ref: 'refs/heads/main', after: second, repository: { clone_url: repo.dir } });

  const refused = await daemon.post('/webhook', body, { 'x-hub-signature-256': githubSignature('not-the-secret', body), 'x-github-event': 'push' });
  assert.equal(refused.status, 401);
  await sleep(1_500);
  assert.equal(descriptionOf(await api.policies(), 'require-tags'), 'Tags are required.', 'nothing was applied');
  assert.equal((await status(daemon)).lastAttemptedRevision, first, 'no pass ran');

  const sentAt = Date.now();
  const accepted = await daemon.post('/webhook', body, { 'x-hub-signature-256': githubSignature(SECRET, body), 'x-github-event': 'push' });
  assert.equal(accepted.status, 202);
  assert.deepEqual(await accepted.json(), { accepted: true, sources: ['platform'] });
  await waitFor('the pushed commit applied', async () => (descriptionOf(await api.policies(), 'require-tags') === 'Changed by a push.' ? true : undefined), 5_000);
  const latency = Date.now() - sentAt;
  assert.ok(latency < 5_000, `applied ${latency} ms after the webhook`);
  await waitFor('the status', async () => ((await status(daemon)).lastAppliedRevision === second ? true : undefined));
  assert.ok(!daemon.stderr().includes(SECRET), 'the webhook secret is in no log line');
});
