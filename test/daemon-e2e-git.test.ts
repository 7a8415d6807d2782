import assert from 'node:assert/strict';
import { test, type TestContext } from 'node:test';
import { githubSignature } from './helpers/webhook-signature.js';
import { firstSourceStatus as status, spawnDaemon } from './helpers/daemon-process.js';
import { TestEmulator } from './helpers/emulator.js';
import { gitRepo } from './helpers/git-repo.js';
import { REQUIRE_TAGS_DESCRIPTION, REQUIRE_TAGS_SETTINGS, smallRepo } from './helpers/repos.js';
import { waitFor } from './helpers/wait.js';

const SECRET = 'e2e-webhook-secret';
const NEVER = '0 0 1 1 *';

/** The emulator for the daemon under test, closed when the test ends. */
async function startApi(t: TestContext): Promise<TestEmulator> {
  const api = await TestEmulator.start();
  t.after(() => api.close());
  return api;
}

function gitSource(url: string, schedule: string) {
  return { name: 'platform', organization: 'example-org', git: { url, ref: 'main', path: '.' }, schedule };
}

test('git source: start-up applies the commit, a pushed commit is applied on the next tick, /status shows it', async (t) => {
  const api = await startApi(t);
  const repo = await gitRepo(t);
  const first = await repo.commit(smallRepo(), 'initial policies');
  const daemon = await spawnDaemon(
    t,
    { api: { url: api.url, 'rate-limit': 'auto' }, sources: [gitSource(`file://${repo.dir}`, '* * * * * *')] },
    { API_TOKEN: api.token },
  );
  await waitFor('the first commit applied', async () => ((await status(daemon)).lastAppliedRevision === first ? true : undefined));
  assert.equal(await api.description('require-tags'), REQUIRE_TAGS_DESCRIPTION);
  assert.equal((await daemon.get('/readyz')).status, 200);

  const second = await repo.commit({ [REQUIRE_TAGS_SETTINGS]: 'description: Tags are required everywhere.\nenforcement-level: hard-mandatory\n' });
  await waitFor('the pushed commit applied', async () => ((await api.description('require-tags')) === 'Tags are required everywhere.' ? true : undefined));
  // A pass starts every second, so one may be running already: the fields below are those of the last finished pass.
  const after = await waitFor('the status of the new commit', async () => {
    const s = await status(daemon);
    return s.lastAppliedRevision === second ? s : undefined;
  });
  assert.equal(after.lastAttemptedRevision, second);
  assert.equal(after.result, 'success');
  assert.equal(after.lastTrigger, 'schedule');
  assert.equal((await api.policies()).find((p) => p.name === 'require-tags')?.['enforcement-level'], 'hard-mandatory');
});

test('git source: a signed webhook applies a new commit (the schedule never ticks); a bad signature gets 401 and applies nothing', async (t) => {
  const api = await startApi(t);
  const repo = await gitRepo(t);
  const first = await repo.commit(smallRepo());
  const daemon = await spawnDaemon(
    t,
    { api: { url: api.url }, sources: [gitSource(repo.dir, NEVER)], 'webhook-secret-env': 'HOOK_SECRET' },
    { API_TOKEN: api.token, HOOK_SECRET: SECRET },
  );
  await waitFor('the first commit applied', async () => ((await status(daemon)).lastAppliedRevision === first ? true : undefined));
  const second = await repo.commit({ [REQUIRE_TAGS_SETTINGS]: 'description: Changed by a push.\n' });
  const body = JSON.stringify({ ref: 'refs/heads/main', after: second, repository: { clone_url: repo.dir } });

  const refused = await daemon.post('/webhook', body, { 'x-hub-signature-256': githubSignature('not-the-secret', body), 'x-github-event': 'push' });
  assert.equal(refused.status, 401);
  // A webhook starts its pass (running, lastTrigger) before it is answered, so a refused one has started nothing.
  const afterRefusal = await status(daemon);
  assert.deepEqual([afterRefusal.running, afterRefusal.lastTrigger, afterRefusal.lastAttemptedRevision], [false, 'start-up', first], 'no pass ran');
  assert.equal(await api.description('require-tags'), REQUIRE_TAGS_DESCRIPTION, 'nothing was applied');

  const accepted = await daemon.post('/webhook', body, { 'x-hub-signature-256': githubSignature(SECRET, body), 'x-github-event': 'push' });
  assert.equal(accepted.status, 202);
  assert.deepEqual(await accepted.json(), { accepted: true, sources: ['platform'] });
  await waitFor('the pushed commit applied', async () => ((await api.description('require-tags')) === 'Changed by a push.' ? true : undefined));
  await waitFor('the status', async () => ((await status(daemon)).lastAppliedRevision === second ? true : undefined));
  const webhookPasses = daemon.logs().filter((l) => l.msg === 'pass started' && l.trigger === 'webhook');
  assert.equal(webhookPasses.length, 1, 'one pass, for the signed webhook only');
  assert.ok(!daemon.stderr().includes(SECRET), 'the webhook secret is in no log line');
});
