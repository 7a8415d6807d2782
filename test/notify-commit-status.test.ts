import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import { stringify } from 'yaml';
import { spawnCli } from './helpers/cli.js';
import { spawnDaemon } from './helpers/daemon-process.js';
import { newStateDir } from './helpers/daemon-state-dir.js';
import { TestEmulator } from './helpers/emulator.js';
import { gitRepo } from './helpers/git-repo.js';
import { startReceiver } from './helpers/receiver.js';
import { smallRepo } from './helpers/repos.js';
import { tempTree } from './helpers/temp-tree.js';
import { waitFor } from './helpers/wait.js';

const declared = () => Object.fromEntries(Object.entries(smallRepo()).map(([p, c]) => [`declared/${p}`, c]));

test('a one-shot --reconcile sets GitHub and GitLab commit statuses on the revision and posts the same events', async (t) => {
  const api = await TestEmulator.start();
  t.after(() => api.close());
  const repo = await gitRepo(t);
  const commit = await repo.commit(declared(), 'declare policies');
  const github = await startReceiver(t, [201]);
  const gitlab = await startReceiver(t, [201]);
  const hook = await startReceiver(t);
  const work = await tempTree(t, {});
  const config = path.join(work, 'sync.yaml');
  await writeFile(config, stringify({
    api: { url: api.url },
    'state-dir': await newStateDir(t),
    sources: [{ name: 'platform', organization: 'example-org', git: { url: repo.dir, ref: 'main', path: 'declared' } }],
    notifications: [
      { name: 'gh', type: 'github-status', 'url-env': 'GH_REPO', 'secret-env': 'GH_TOKEN', 'status-url': 'https://sync.example.com/status.html' },
      { name: 'gl', type: 'gitlab-status', 'url-file': path.join(work, 'gitlab-url'), 'secret-env': 'GL_TOKEN' },
      { name: 'ci', type: 'webhook', 'url-env': 'HOOK' },
    ],
  }));
  await writeFile(path.join(work, 'gitlab-url'), `${gitlab.url}/api/v4/projects/platform/policies\n`);
  const env = { API_TOKEN: api.token, GH_REPO: `${github.url}/repos/acme/policies`, GH_TOKEN: 'ghp-Secret', GL_TOKEN: 'glpat-Secret', HOOK: hook.url };

  const run = await spawnCli(['--reconcile', '--config', config], { env });
  assert.equal(run.code, 0, run.stderr);
  assert.deepEqual(github.received.map((r) => [r.path, r.json.state]), [
    [`/repos/acme/policies/statuses/${commit}`, 'pending'],
    [`/repos/acme/policies/statuses/${commit}`, 'success'],
  ]);
  const done = github.received[1]!;
  assert.equal(done.headers.authorization, 'Bearer ghp-Secret');
  assert.equal(done.json.context, 'policy-pool-sync/platform');
  assert.equal(done.json.target_url, 'https://sync.example.com/status.html');
  assert.equal(done.json.description, 'applied 5 changes');
  assert.deepEqual(gitlab.received.map((r) => [r.path, r.json.state]), [
    [`/api/v4/projects/platform%2Fpolicies/statuses/${commit}`, 'running'],
    [`/api/v4/projects/platform%2Fpolicies/statuses/${commit}`, 'success'],
  ]);
  assert.deepEqual(gitlab.received.map((r) => r.json.ref), ['main', 'main'], 'the branch the source reads');
  assert.equal(gitlab.received[0]!.headers['private-token'], 'glpat-Secret');
  assert.deepEqual(hook.received.map((r) => [r.json.event, r.json.revision, r.json.trigger]), [['applied', commit, 'reconcile']]);
  for (const secret of ['ghp-Secret', 'glpat-Secret', github.url, gitlab.url, hook.url]) assert.ok(!`${run.stdout}${run.stderr}`.includes(secret));

  // A dry run changes nothing and tells nobody.
  const dry = await spawnCli(['--dry-run', '--config', config], { env });
  assert.equal(dry.code, 0, dry.stderr);
  assert.equal(hook.received.length, 1);

  // A receiver without its URL is a configuration error, said before any pass.
  const missing = await spawnCli(['--reconcile', '--config', config], { env: { ...env, HOOK: '' } });
  assert.equal(missing.code, 1);
  assert.match(missing.stderr, /notification receiver "ci": the environment variable HOOK \(url-env\) is not set/);
});

test('the daemon sets a failure status on a revision it cannot apply', async (t) => {
  const api = await TestEmulator.start();
  t.after(() => api.close());
  const repo = await gitRepo(t);
  const commit = await repo.commit({ ...declared(), 'declared/policies/security/require-tags.yaml': 'enforcement-level: nonsense\n' }, 'broken');
  const github = await startReceiver(t, [201]);
  const daemon = await spawnDaemon(
    t,
    {
      api: { url: api.url },
      sources: [{ name: 'platform', organization: 'example-org', git: { url: repo.dir, ref: 'main', path: 'declared' }, schedule: '0 0 1 1 *' }],
      notifications: [{ name: 'gh', type: 'github-status', 'url-env': 'GH_REPO' }],
    },
    { API_TOKEN: api.token, GH_REPO: github.url },
  );
  await waitFor('the failure status', () => (github.received.length >= 2 ? true : undefined));
  assert.deepEqual(github.received.map((r) => [r.path, r.json.state]), [[`/statuses/${commit}`, 'pending'], [`/statuses/${commit}`, 'failure']]);
  assert.match(github.received[1]!.json.description, /failed: /);
  assert.ok(daemon.logs().some((l) => l.msg === 'pass events' && JSON.stringify(l.events) === '["failed"]'));
});
