/**
 * A run of the action that makes no plan: the API cannot be reached, the token is refused, the repo is invalid. The
 * step summary and the pull request's comment then carry the error, in place of the plan and saying so; the comment's
 * last plan is replaced by that error, never by an empty body.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { upsertStickyComment } from '../../src/ci/sticky-comment.js';
import { OutgoingHttp } from '../../src/http/outgoing.js';
import { readAction, runAction, type ActionFile } from '../helpers/action-runner.js';
import { ORG } from '../helpers/emulator.js';
import { startFakeGitHub, type FakeGitHub } from '../helpers/fake-github.js';
import { useWorld } from '../helpers/world.js';

const REPOSITORY = 'acme/policies';
const GITHUB_TOKEN = 'ghs-workflow-Token-0002';
const POLICY = { 'policies/tags.native': 'main = rule { true }\n' };
const MARKER = '<!-- policy-pool-sync plan source=failing -->';

describe('action.yml: a run that makes no plan', () => {
  const fixture = useWorld();
  let action: ActionFile;
  let github: FakeGitHub;
  before(async () => {
    action = await readAction();
    github = await startFakeGitHub(REPOSITORY, GITHUB_TOKEN);
  });
  after(() => github.close());

  const run = (dir: string, inputs: Record<string, string>, pullRequest: number) =>
    runAction(action, {
      cwd: dir,
      inputs: { organization: ORG, 'api-url': fixture.world.url, token: fixture.world.token, source: 'failing', comment: 'true', ...inputs },
      env: { GITHUB_API_URL: github.url, GITHUB_REPOSITORY: REPOSITORY },
      githubToken: GITHUB_TOKEN,
      pullRequest,
    });
  const comment = (issue: number) => (github.comments.get(issue) ?? []).find((c) => c.body.startsWith(MARKER));

  it('the API unreachable: the summary and the comment say why, in place of the last plan, and the step fails', async () => {
    const dir = await fixture.repo(POLICY);
    const planned = await run(dir, { mode: 'dry-run' }, 11);
    assert.ok(planned.ok, JSON.stringify(planned.steps, null, 2));
    assert.match(comment(11)!.body, /tags/);

    const failed = await run(dir, { mode: 'dry-run', 'api-url': 'http://127.0.0.1:1/api/v2' }, 11);
    assert.equal(failed.ok, false);
    assert.equal(failed.outputs['exit-code'], '1');
    for (const [where, body] of [['summary', failed.summary], ['comment', comment(11)!.body]] as const) {
      assert.match(body, /^<!-- policy-pool-sync plan source=failing -->\n/, where);
      assert.match(body, /\*\*No plan: the run failed \(exit code 1\) before a plan was made\.\*\* This replaces the plan shown here before/, where);
      assert.match(body, /cannot reach the API at http:\/\/127\.0\.0\.1:1\/api\/v2: nothing accepts connections/, where);
      assert.doesNotMatch(body, /tags/, where);
    }
    assert.match(failed.steps.at(-1)?.stdout ?? '', /plan comment updated: /);
    assert.equal((github.comments.get(11) ?? []).length, 1, 'the same comment, replaced');
  });

  it('a refused token: the summary and the comment carry the service\'s refusal, and never the token', async () => {
    const refused = await run(await fixture.repo(POLICY), { mode: 'dry-run', token: 'not-the-Token-9931' }, 12);
    assert.equal(refused.ok, false);
    assert.match(refused.summary, /\*\*No plan: the live state could not be read, so nothing is known about drift\.\*\* This replaces the plan shown here before/);
    assert.match(refused.summary, /❌ .*the API refused the token/);
    assert.equal(comment(12)?.body, refused.summary);
    assert.ok(!JSON.stringify(refused).includes('not-the-Token-9931'), 'the token appears in the outputs, logs or summary');
  });

  it('an invalid repo: the summary and the comment name the file and say the plan they replace is no longer current', async () => {
    const invalid = await run(await fixture.repo({ ...POLICY, 'policies/tags.yaml': 'enforcement_level: advisory\n' }), { mode: 'dry-run' }, 13);
    assert.equal(invalid.ok, false);
    assert.match(invalid.summary, /\*\*No plan: the declared repo is invalid\.\*\* This replaces the plan shown here before, which is no longer current/);
    assert.match(comment(13)!.body, /policies\/tags\.yaml:1: unknown key/);
  });

  it('a blank plan never replaces the comment', async () => {
    const earlier = github.addComment(14, `${MARKER}\nthe last plan`);
    const http = new OutgoingHttp({});
    try {
      const writes = github.requests.filter((r) => r.method !== 'GET').length;
      for (const body of ['', `${MARKER}\n`, `${MARKER}\n\n  \n`]) {
        await assert.rejects(
          upsertStickyComment({ apiUrl: github.url, repository: REPOSITORY, issue: 14, token: GITHUB_TOKEN, body, source: 'failing', http }),
          /the plan is empty: the pull request's comment is left as it was/,
        );
      }
      assert.equal(earlier.body, `${MARKER}\nthe last plan`);
      assert.equal(github.requests.filter((r) => r.method !== 'GET').length, writes);
    } finally {
      await http.close();
    }
  });
});
