import assert from 'node:assert/strict';
import { readdir } from 'node:fs/promises';
import { after, before, describe, it } from 'node:test';
import { readAction, runAction, type ActionFile, type RunOptions } from '../helpers/action-runner.js';
import { startFakeGitHub, type FakeGitHub } from '../helpers/fake-github.js';
import { ORG } from '../helpers/emulator.js';
import { useWorld } from '../helpers/world.js';

const POLICY = { 'policies/tags.native': 'main = rule { true }\n', 'policies/tags.yaml': 'enforcement-level: soft-mandatory\n' };
const REPOSITORY = 'acme/policies';
const GITHUB_TOKEN = 'ghs-workflow-Token-0001';

describe('action.yml', () => {
  let action: ActionFile;
  before(async () => {
    action = await readAction();
  });

  it('is a composite action with the documented inputs and outputs', () => {
    assert.equal(action.runs.using, 'composite');
    for (const input of ['mode', 'source-dir', 'organization', 'source', 'api-url', 'token', 'prune', 'force', 'allow-empty', 'adopt', 'max-agent-pools', 'timeout', 'comment', 'state-dir']) {
      assert.ok(action.inputs[input], `input ${input}`);
    }
    assert.equal(action.inputs['token']?.required, true);
    assert.deepEqual(Object.keys(action.outputs).sort(), ['changes', 'exit-code', 'plan-file']);
  });

  describe('against the emulator', () => {
    const fixture = useWorld();
    let github: FakeGitHub;
    before(async () => {
      github = await startFakeGitHub(REPOSITORY, GITHUB_TOKEN);
    });
    after(() => github.close());

    function options(dir: string, inputs: Record<string, string>, extra: Partial<RunOptions> = {}): RunOptions {
      return {
        cwd: dir,
        inputs: { organization: ORG, 'api-url': fixture.world.url, token: fixture.world.token, ...inputs },
        env: { GITHUB_API_URL: github.url, GITHUB_REPOSITORY: REPOSITORY },
        githubToken: GITHUB_TOKEN,
        ...extra,
      };
    }

    async function run(dir: string, inputs: Record<string, string>, extra: Partial<RunOptions> = {}) {
      const result = await runAction(action, options(dir, inputs, extra));
      const everything = JSON.stringify(result);
      assert.ok(!everything.includes(fixture.world.token), 'the API token appears in the outputs, logs or summary');
      return result;
    }

    it('a dry run with changes succeeds, says changes=true, and puts the Markdown plan in the step summary', async () => {
      const dir = await fixture.repo(POLICY);
      await fixture.world.clearRequests();
      const result = await run(dir, { mode: 'dry-run', 'source-dir': '.' });
      assert.ok(result.ok, JSON.stringify(result.steps, null, 2));
      // The set-up installs and builds nothing: the bundle runs as it is, so the steps before the plan take well under 3 s.
      const setUp = result.steps.slice(0, result.steps.findIndex((s) => s.name === 'Plan or apply'));
      const setUpMs = setUp.reduce((sum, s) => sum + s.ms, 0);
      assert.ok(setUpMs < 3_000, `set-up took ${setUpMs} ms`);
      for (const step of action.runs.steps) assert.doesNotMatch(step.run ?? '', /npm (ci|install|run)|\btsc\b|dist\//, step.name);
      assert.equal(result.outputs['changes'], 'true');
      assert.equal(result.outputs['exit-code'], '2');
      assert.match(result.summary, /tags/);
      assert.match(result.summary, /create/i);
      assert.deepEqual(await fixture.world.writes(), [], 'a dry run writes nothing');
    });

    it('reconcile applies, then a dry run of the same repo says changes=false', async () => {
      const dir = await fixture.repo({ 'policies/applied.native': 'main = rule { true }\n' });
      const applied = await run(dir, { mode: 'reconcile' });
      assert.ok(applied.ok, JSON.stringify(applied.steps, null, 2));
      assert.equal(applied.outputs['changes'], 'true');
      assert.ok((await fixture.world.organization()).policies.some((p) => p['name'] === 'applied'));
      const again = await run(dir, { mode: 'dry-run' });
      assert.ok(again.ok);
      assert.deepEqual([again.outputs['changes'], again.outputs['exit-code']], ['false', '0']);
    });

    it('an error fails the step, with exit-code 1 and the plan still in the summary', async () => {
      const dir = await fixture.repo({ 'policies/broken.native': 'main = rule { true }\n', 'policies/broken.yaml': 'enforcement_level: advisory\n' });
      const result = await run(dir, { mode: 'dry-run' });
      assert.equal(result.ok, false);
      assert.equal(result.steps.find((s) => s.name === 'Plan or apply')?.code, 1);
      assert.equal(result.outputs['exit-code'], '1');
      assert.match(result.summary, /policies\/broken\.yaml:1: unknown key/);
    });

    it('refuses an unknown mode', async () => {
      const result = await run(await fixture.repo(POLICY), { mode: 'apply' });
      assert.equal(result.ok, false);
      assert.match(result.steps[1]?.stdout ?? '', /::error::mode must be dry-run, reconcile or validate, not "apply"/);
    });

    it('force, allow-empty, adopt and timeout reach the command line, and errors advise the action\'s inputs', async () => {
      const many = Object.fromEntries(Array.from({ length: 11 }, (_, i) => [`policies/forced-${i}.native`, 'main = rule { true }\n']));
      assert.ok((await run(await fixture.repo(many), { mode: 'reconcile', source: 'force-test' })).ok);
      const empty = await fixture.repo({ 'README.md': 'nothing declared here\n' });
      const refused = await run(empty, { mode: 'dry-run', source: 'force-test', prune: 'true' });
      assert.equal(refused.ok, false);
      assert.match(refused.summary, /set the action's input allow-empty: true/);
      assert.doesNotMatch(refused.summary, /--allow-empty/);
      assert.match(refused.steps[1]?.stderr ?? '', /::error::.*set the action's input allow-empty: true/);

      const tooMany = await run(empty, { mode: 'dry-run', source: 'force-test', prune: 'true', 'allow-empty': 'true' });
      assert.equal(tooMany.ok, false);
      assert.match(tooMany.summary, /more than max-deletes \(10\); refusing to apply\. Check the planned deletions, then set the action's input force: true or raise max-deletes/);
      const forced = await run(empty, { mode: 'dry-run', source: 'force-test', prune: 'true', 'allow-empty': 'true', force: 'true', adopt: 'true', timeout: '120' });
      assert.ok(forced.ok, JSON.stringify(forced.steps, null, 2));
      assert.equal(forced.outputs['exit-code'], '2');
      assert.match(forced.summary, /11 to delete/);

      const timedOut = await run(await fixture.repo(POLICY), { mode: 'dry-run', timeout: 'soon' });
      assert.match(timedOut.steps[1]?.stderr ?? '', /^::error::the action's input timeout must be a number of seconds, not "soon"$/m);
    });

    it('max-agent-pools reaches the command line, and the guard\'s error advises the action\'s input', async () => {
      const dir = await fixture.repo({ 'agent-pools/one.yaml': '{}\n', 'agent-pools/two.yaml': '{}\n' });
      const refused = await run(dir, { mode: 'dry-run', source: 'pools-test' });
      assert.equal(refused.ok, false);
      assert.match(refused.summary, /max-agent-pools is 1: that is this tool's own guard.*the action's input max-agent-pools 2/);
      const planned = await run(dir, { mode: 'dry-run', source: 'pools-test', 'max-agent-pools': '2' });
      assert.ok(planned.ok, JSON.stringify(planned.steps, null, 2));
      assert.equal(planned.outputs['exit-code'], '2');
    });

    it('source, prune and state-dir reach the command line', async () => {
      const dir = await fixture.repo({ 'policies/kept.native': 'main = rule { true }\n', 'policies/gone.native': 'main = rule { true }\n' });
      assert.ok((await run(dir, { mode: 'reconcile', source: 'prune-test' })).ok);
      const smaller = await fixture.repo({ 'policies/kept.native': 'main = rule { true }\n' });
      const withoutPrune = await run(smaller, { mode: 'dry-run', source: 'prune-test' });
      assert.equal(withoutPrune.outputs['changes'], 'false');
      const stateDir = await fixture.repo({});
      const pruned = await run(smaller, { mode: 'dry-run', source: 'prune-test', prune: 'true', 'state-dir': stateDir });
      assert.ok(pruned.ok, JSON.stringify(pruned.steps, null, 2));
      assert.equal(pruned.outputs['changes'], 'true');
      assert.match(pruned.summary, /^<!-- policy-pool-sync plan source=prune-test -->/);
      assert.match(pruned.summary, /gone/);
      assert.match(pruned.summary, /delete/i);
      assert.ok((await readdir(stateDir)).length > 0, 'the state dir holds the code cache');
    });

    it('comment: creates one comment on the pull request, then updates that same comment, leaving others alone', async () => {
      // More than a page of other comments: the plan's comment is found past the first page.
      for (let i = 0; i < 120; i += 1) github.addComment(7, `looks good ${i}`);
      const dir = await fixture.repo({ 'policies/first.native': 'main = rule { true }\n' });
      const created = await run(dir, { mode: 'dry-run', comment: 'true', source: 'platform-policies' }, { pullRequest: 7 });
      assert.ok(created.ok, JSON.stringify(created.steps, null, 2));
      assert.match(created.steps[2]?.stdout ?? '', /plan comment created: /);
      const plans = () => (github.comments.get(7) ?? []).filter((c) => c.body.startsWith('<!-- policy-pool-sync plan source='));
      assert.equal(plans().length, 1);
      assert.match(plans()[0]!.body, /^<!-- policy-pool-sync plan source=platform-policies -->\n/);
      assert.match(plans()[0]!.body, /first/);

      const second = await fixture.repo({ 'policies/second.native': 'main = rule { true }\n' });
      const updated = await run(second, { mode: 'dry-run', comment: 'true', source: 'platform-policies' }, { pullRequest: 7 });
      assert.ok(updated.ok);
      assert.match(updated.steps[2]?.stdout ?? '', /plan comment updated: /);
      assert.equal(plans().length, 1, 'one comment per source');
      assert.match(plans()[0]!.body, /second/);
      assert.doesNotMatch(plans()[0]!.body, /first/);
      assert.equal(github.comments.get(7)?.length, 121);
      assert.equal(github.comments.get(7)?.[5]?.body, 'looks good 5');
      assert.deepEqual(
        github.requests.filter((r) => r.method !== 'GET').map((r) => r.method),
        ['POST', 'PATCH'],
      );
      assert.ok(github.requests.every((r) => r.authorization === `Bearer ${GITHUB_TOKEN}`), 'only the workflow token goes to GitHub');
    });

    it('comment: a person\'s comment that quotes the marker is never edited; the action posts its own', async () => {
      const quoted = '<!-- policy-pool-sync plan source=quoted -->\nThis plan deletes too much, see above.';
      const human = github.addComment(8, quoted, 'octocat');
      const dir = await fixture.repo({ 'policies/quoted.native': 'main = rule { true }\n' });
      const result = await run(dir, { mode: 'dry-run', comment: 'true', source: 'quoted' }, { pullRequest: 8 });
      assert.ok(result.ok, JSON.stringify(result.steps, null, 2));
      assert.match(result.steps.at(-1)?.stdout ?? '', /plan comment created: /);
      assert.equal(human.body, quoted);
      const ours = (github.comments.get(8) ?? []).filter((c) => c.user.login === 'github-actions[bot]');
      assert.equal(ours.length, 1);
      assert.match(ours[0]!.body, /quoted/);
    });

    it('comment on a push (no pull request) posts nothing and says why', async () => {
      const before = github.requests.length;
      const result = await run(await fixture.repo(POLICY), { mode: 'dry-run', comment: 'true' });
      assert.ok(result.ok);
      assert.match(result.steps[2]?.stdout ?? '', /::notice::comment is on, but this run is not for a pull request/);
      assert.equal(github.requests.length, before);
    });

    it('comment off: the comment step does nothing', async () => {
      const before = github.requests.length;
      const result = await run(await fixture.repo(POLICY), { mode: 'dry-run' }, { pullRequest: 8 });
      assert.ok(result.ok);
      assert.equal(github.requests.length, before);
    });
  });
});
