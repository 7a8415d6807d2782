/**
 * Saved plan version "2": each saved change is the change itself, as a fresh plan holds it, read back in shape (a
 * problem names the change and the key), checked against a fresh plan field by field except where the code's bytes
 * are on the machine, and shown through the renderers of a fresh plan. A plan saved as "1" is refused.
 */
import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, it } from 'node:test';
import { renderSavedPlan, renderText } from '../src/output/index.js';
import { savedChange } from '../src/plan/saved.js';
import { parseSavedPlan } from '../src/cli/saved-plan-file.js';
import { neverPingedPlans, richPlans, SAVED_RUN } from './helpers/output-plans.js';
import { runCli } from './helpers/cli.js';
import { useWorld } from './helpers/world.js';

type Json = Record<string, any>;

function changesOf(document: Json): Json[] {
  return document['sources'][0]['changes'] as Json[];
}

describe('the saved plan file, version "2"', () => {
  it('holds each change as the plan has it, and reads it back as that same change', () => {
    for (const plans of [richPlans(), neverPingedPlans()]) {
      const read = parseSavedPlan(renderSavedPlan(plans, SAVED_RUN), 'plan.json');
      assert.equal(read.saved_plan_version, '2');
      read.sources.forEach((source, index) => {
        const planned = plans[index]!.plan?.changes ?? [];
        assert.deepEqual(source.changes, planned.map((change) => JSON.parse(JSON.stringify(savedChange(change))) as unknown));
      });
    }
  });

  it('shows a saved plan through the renderers of a fresh one: the same text', () => {
    const plans = richPlans();
    const read = parseSavedPlan(renderSavedPlan(plans, SAVED_RUN), 'plan.json');
    const shown = read.sources.map((s, i) => ({ ...plans[i]!, plan: { ...plans[i]!.plan!, changes: s.changes ?? [] } }));
    const fresh = plans.map((s) => ({ ...s, plan: { ...s.plan!, changes: s.plan!.changes.map(savedChange) } }));
    assert.equal(renderText(shown, { color: false }), renderText(fresh, { color: false }));
  });

  it('refuses a plan saved as "1", saying to make a new plan', () => {
    const document = JSON.parse(renderSavedPlan(neverPingedPlans(), SAVED_RUN)) as Json;
    document['saved_plan_version'] = '1';
    assert.throws(() => parseSavedPlan(JSON.stringify(document), 'old.json'), /old\.json was saved by an older version \(saved_plan_version "1"\).*make a new plan/);
  });

  it('refuses a change of the wrong shape, naming the source, the change and the key', () => {
    const cases: Array<[(change: Json) => void, RegExp]> = [
      [(c) => { c['live']['lastPingAt'] = 5; }, /plan\.json: source "platform": the change of "agent" "runner-9": live\.lastPingAt must be a string or null, not 5 \(a number\)/],
      [(c) => { delete c['poolName']; }, /the change of "agent" "runner-9": the change is missing the key "poolName"/],
      [(c) => { c['uploadCode'] = true; }, /the change of "agent" "runner-9": uploadCode is not a key of a change of "agent"/],
      [(c) => { c['fields'] = { code: { before: null, after: 'main = rule { true }' } }; }, /fields\.code\.after must be a mapping/],
      [(c) => { c['action'] = 'update'; }, /the change of "agent" "runner-9": action must be "delete", not "update"/],
      [(c) => { c['live'] = { id: 1 }; }, /live is missing the key "status"\n(.*\n)*.*live\.id must be a string, not 1 \(a number\)/],
      [(c) => { c['outcome'] = 'applied'; c['message'] = null; }, /the change has "outcome"/],
    ];
    for (const [edit, message] of cases) {
      const document = JSON.parse(renderSavedPlan(neverPingedPlans(), SAVED_RUN)) as Json;
      edit(changesOf(document)[0]!);
      assert.throws(() => parseSavedPlan(JSON.stringify(document), 'plan.json'), message);
    }
  });

  describe('applied against a plan made now', () => {
    const fixture = useWorld();

    async function saved(name: string): Promise<{ dir: string; file: string; document: Json }> {
      const world = fixture.world;
      const dir = await fixture.repo({ [`policies/${name}.native`]: 'main = rule { true }\n' });
      assert.equal((await world.cli('--reconcile', dir, ['--source', name])).code, 0);
      await writeFile(path.join(dir, `policies/${name}.yaml`), 'enforcement-level: hard-mandatory\n');
      const file = path.join(await fixture.repo({}), 'plan.json');
      assert.equal((await world.cli('--dry-run', dir, ['--source', name, '--out', file])).code, 0);
      return { dir, file, document: JSON.parse(await readFile(file, 'utf8')) as Json };
    }

    it('applies a plan made on another machine: where the code\'s bytes were is not compared', async () => {
      const world = fixture.world;
      const { dir, file, document } = await saved('moved');
      const change = changesOf(document)[0]!;
      change['declared']['code']['source']['root'] = '/elsewhere/checkout';
      change['declared']['code']['source']['path'] = '/elsewhere/checkout/policies/moved.native';
      await writeFile(file, JSON.stringify(document));
      const run = await world.cli('--reconcile', dir, ['--source', 'moved', '--plan', file]);
      assert.equal(run.code, 0, run.stdout + run.stderr);
      assert.equal((await world.policies()).find((p) => p.name === 'moved')?.['enforcement-level'], 'hard-mandatory');
    });

    it('refuses a saved change that differs from the fresh one in what the apply does, naming the key', async () => {
      const world = fixture.world;
      const { dir, file, document } = await saved('flipped');
      changesOf(document)[0]!['uploadCode'] = true;
      await writeFile(file, JSON.stringify(document));
      await world.clearRequests();
      const run = await world.cli('--reconcile', dir, ['--source', 'flipped', '--plan', file]);
      assert.equal(run.code, 1, run.stdout + run.stderr);
      assert.match(run.stdout + run.stderr, /refused: update policy "flipped": .*differs in uploadCode/);
      assert.deepEqual(await world.writes(), [], 'no write');
    });

    it('refuses a plan saved as "1" with no write, and --show refuses it too', async () => {
      const world = fixture.world;
      const { dir, file, document } = await saved('older');
      document['saved_plan_version'] = '1';
      await writeFile(file, JSON.stringify(document));
      await world.clearRequests();
      const run = await world.cli('--reconcile', dir, ['--source', 'older', '--plan', file]);
      assert.notEqual(run.code, 0);
      assert.match(run.stderr, /saved_plan_version "1".*make a new plan with --dry-run --out FILE/);
      assert.deepEqual(await world.writes(), [], 'no write');
      const shown = await runCli(['--show', file]);
      assert.notEqual(shown.code, 0);
      assert.match(shown.stderr, /saved_plan_version "1"/);
    });
  });
});
