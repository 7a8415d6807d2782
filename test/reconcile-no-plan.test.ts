import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ApiClient } from '../src/api/client.js';
import { sourceDefaults } from '../src/config/to-config.js';
import { silentLogger } from '../src/logger.js';
import { renderJson, renderMarkdown, renderText } from '../src/output/index.js';
import { runPass } from '../src/reconcile.js';
import { smallRepo } from './helpers/repos.js';
import { ORG } from './helpers/emulator.js';
import { useWorld } from './helpers/world.js';

describe('a source whose live state cannot be read has no plan, which is not an empty plan', () => {
  const fixture = useWorld();

  async function refusedListing<T>(run: () => Promise<T>): Promise<T> {
    await fixture.world.addFaults({ kind: 'status', status: 403, method: 'GET', path: `/organizations/${ORG}/policies`, count: 0 });
    try {
      return await run();
    } finally {
      await fixture.world.clearFaults();
    }
  }

  it('runPass ends without a plan and says the live state could not be read, in every format', async () => {
    const world = fixture.world;
    const dir = await fixture.repo(smallRepo());
    const api = new ApiClient({ baseUrl: world.url, token: world.token, logger: silentLogger() });
    const source = { ...sourceDefaults('main', ORG), path: dir };
    const outcome = await refusedListing(() => runPass({ source, dir, revision: null, api, logger: silentLogger(), mode: 'plan' }));
    await api.close();

    assert.equal(outcome.ok, false);
    assert.deepEqual(outcome.results, []);
    const { sourcePlan } = outcome;
    assert.equal(sourcePlan.plan, null, 'no plan, rather than a plan with no changes');
    assert.ok(sourcePlan.plan === null && sourcePlan.unreadable === 'live');
    assert.match(sourcePlan.errors.join('\n'), /reading the live state of organization example-org failed: .*403/);

    const text = renderText([sourcePlan], { color: false });
    assert.match(text, /No plan: the live state could not be read/);
    assert.match(text, /No plan for 1 of 1 source: see the errors above\.\n$/);
    assert.doesNotMatch(text, /No changes/);
    const markdown = renderMarkdown([sourcePlan]);
    assert.match(markdown, /No plan: the live state could not be read/);
    assert.doesNotMatch(markdown, /No changes/);
    const json = JSON.parse(renderJson([sourcePlan])) as { sources: Array<Record<string, unknown>> };
    assert.deepEqual(Object.keys(json.sources[0] ?? {}), ['name', 'organization', 'revision', 'changes', 'warnings', 'errors']);
    assert.deepEqual(json.sources[0]?.['changes'], []);
    assert.match(String((json.sources[0]?.['errors'] as string[])[0]), /reading the live state of organization example-org failed/);
  });

  it('the CLI dry run exits 1 and does not say the API is in sync', async () => {
    const dir = await fixture.repo(smallRepo());
    const run = await refusedListing(() => fixture.world.cli('--dry-run', dir));
    assert.equal(run.code, 1, run.stdout + run.stderr);
    assert.match(run.stdout, /No plan: the live state could not be read/);
    assert.match(run.stdout, /reading the live state of organization example-org failed/);
    assert.doesNotMatch(run.stdout, /No changes|matches the declared repo/);
  });

  it('an invalid repo has no plan either, and says so', async () => {
    const dir = await fixture.repo({ ...smallRepo(), 'policies/orphan.yaml': 'description: x\n' });
    const run = await fixture.world.cli('--dry-run', dir, ['--output', 'markdown']);
    assert.equal(run.code, 1, run.stdout + run.stderr);
    assert.match(run.stdout, /No plan: the declared repo is invalid/);
    assert.match(run.stdout, /policies\/orphan\.yaml/);
    assert.doesNotMatch(run.stdout, /No changes/);
  });
});
