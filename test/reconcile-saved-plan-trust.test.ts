/**
 * A saved plan is input, like the repo: applying it re-checks everything a new plan would. A change is applied
 * only when planning the same declared repo against the live state now makes the identical change (same action,
 * fields, live resource and declaration), and ownership, prune and the guards allow it; anything else is refused with no write.
 */
import assert from 'node:assert/strict';
import { readFile, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, it } from 'node:test';
import { writeTree } from './helpers/temp-tree.js';
import { useWorld, type World } from './helpers/world.js';

interface SavedChange {
  resource: string; name: string; id: string | null; action: string; reason: string;
  fields: Record<string, unknown>; live: Record<string, unknown> | null; declared: Record<string, unknown> | null;
  [key: string]: unknown;
}
interface SavedDocument {
  saved_plan_version: unknown;
  sources: Array<{ name: string; organization: string; changes: SavedChange[] }>;
}

async function readPlan(file: string): Promise<SavedDocument> {
  return JSON.parse(await readFile(file, 'utf8')) as SavedDocument;
}

async function writePlan(file: string, document: SavedDocument): Promise<void> {
  await writeFile(file, JSON.stringify(document, null, 2));
}

describe('saved plans are re-checked against a plan made now', () => {
  const fixture = useWorld();

  /** Two sources in one organization, each in sync with its repo: `<a>-one`, `<a>-two` and `<b>-one`. */
  async function twoSources(a: string, b: string): Promise<{ dirA: string; dirB: string; plans: string }> {
    const world = fixture.world;
    const dirA = await fixture.repo({
      [`policies/${a}-one.native`]: 'main = rule { true }\n',
      [`policies/${a}-two.native`]: 'main = rule { 2 == 2 }\n',
    });
    const dirB = await fixture.repo({ [`policies/${b}-one.native`]: 'main = rule { "b" == "b" }\n' });
    assert.equal((await world.cli('--reconcile', dirA, ['--source', a])).code, 0);
    assert.equal((await world.cli('--reconcile', dirB, ['--source', b])).code, 0);
    return { dirA, dirB, plans: await fixture.repo({}) };
  }

  /** A saved plan of `source` over `dir` (after `edit`), read back. */
  async function save(world: World, dir: string, source: string, file: string, extra: string[] = []): Promise<SavedDocument> {
    const run = await world.cli('--dry-run', dir, ['--source', source, '--out', file, ...extra]);
    assert.ok(run.code === 0 || run.code === 2, run.stdout + run.stderr);
    return readPlan(file);
  }

  async function refused(world: World, dir: string, source: string, file: string, message: RegExp): Promise<void> {
    await world.clearRequests();
    const run = await world.cli('--reconcile', dir, ['--source', source, '--plan', file]);
    assert.equal(run.code, 1, run.stdout + run.stderr);
    assert.match(run.stdout + run.stderr, message);
    assert.doesNotMatch(run.stdout, /Apply complete!/);
    assert.deepEqual(await world.writes(), [], 'no write');
  }

  it('refuses a delete added for another source\'s policy, with prune off', async () => {
    const world = fixture.world;
    const { dirA, dirB, plans } = await twoSources('da', 'db');
    // Source db's own pruning plan holds the delete of db-one with its true fingerprint.
    await writeTree(dirB, { 'policies/db-other.native': 'main = rule { 3 == 3 }\n' });
    await unlink(path.join(dirB, 'policies/db-one.native'));
    const theirs = await save(world, dirB, 'db', path.join(plans, 'b.json'), ['--prune']);
    const deletion = theirs.sources[0]!.changes.find((c) => c.action === 'delete');
    assert.ok(deletion, 'the plan of db deletes db-one');
    await writeTree(dirA, { 'policies/da-one.yaml': 'enforcement-level: hard-mandatory\n' });
    const file = path.join(plans, 'a.json');
    const mine = await save(world, dirA, 'da', file);
    mine.sources[0]!.changes.push(deletion);
    await writePlan(file, mine);
    await refused(world, dirA, 'da', file, /delete policy "db-one"/);
    assert.ok((await world.policies()).some((p) => p.name === 'db-one'), 'the other source\'s policy is still there');
  });

  it('refuses a change whose id and live state point at another source\'s policy', async () => {
    const world = fixture.world;
    const { dirA, dirB, plans } = await twoSources('ia', 'ib');
    await writeTree(dirB, { 'policies/ib-one.yaml': 'enforcement-level: hard-mandatory\n' });
    const theirs = await save(world, dirB, 'ib', path.join(plans, 'b.json'));
    const target = theirs.sources[0]!.changes.find((c) => c.name === 'ib-one')!;
    await writeTree(dirA, { 'policies/ia-two.yaml': 'enforcement-level: hard-mandatory\n' });
    const file = path.join(plans, 'a.json');
    const mine = await save(world, dirA, 'ia', file);
    const change = mine.sources[0]!.changes.find((c) => c.name === 'ia-two')!;
    change.id = target.id;
    // What the API shows of ib-one; its code is not read for a source that does not declare it.
    change.live = { ...target.live, codeDigest: null };
    await writePlan(file, mine);
    await refused(world, dirA, 'ia', file, /update policy "ia-two"/);
    const policy = (await world.policies()).find((p) => p.name === 'ib-one');
    assert.equal(policy?.code, 'main = rule { "b" == "b" }\n', 'the other source\'s policy keeps its code');
  });

  it('refuses an update changed into a replace', async () => {
    const world = fixture.world;
    const { dirA, plans } = await twoSources('ra', 'rb');
    await writeTree(dirA, { 'policies/ra-one.yaml': 'enforcement-level: hard-mandatory\n' });
    const file = path.join(plans, 'a.json');
    const mine = await save(world, dirA, 'ra', file);
    const before = (await world.policies()).find((p) => p.name === 'ra-one')?.id;
    mine.sources[0]!.changes[0]!.action = 'replace';
    await writePlan(file, mine);
    await refused(world, dirA, 'ra', file, /replace policy "ra-one"/);
    assert.equal((await world.policies()).find((p) => p.name === 'ra-one')?.id, before, 'the policy keeps its id');
  });

  it('refuses a delete of its own policy when the apply does not prune', async () => {
    const world = fixture.world;
    const { dirA, plans } = await twoSources('pa', 'pb');
    await unlink(path.join(dirA, 'policies/pa-two.native'));
    const file = path.join(plans, 'a.json');
    const mine = await save(world, dirA, 'pa', file, ['--prune']);
    assert.deepEqual(mine.sources[0]!.changes.map((c) => `${c.action} ${c.name}`), ['delete pa-two']);
    await refused(world, dirA, 'pa', file, /source "pa": prune \(--prune\) is true in the plan but false in this run/);
    const run = await world.cli('--reconcile', dirA, ['--source', 'pa', '--plan', file, '--prune']);
    assert.equal(run.code, 0, run.stdout + run.stderr);
    assert.ok(!(await world.policies()).some((p) => p.name === 'pa-two'), 'applied with --prune');
  });

  it('refuses an unknown action, naming the change, instead of reporting no changes', async () => {
    const world = fixture.world;
    const { dirA, plans } = await twoSources('ua', 'ub');
    await writeTree(dirA, { 'policies/ua-one.yaml': 'enforcement-level: hard-mandatory\n' });
    const file = path.join(plans, 'a.json');
    const mine = await save(world, dirA, 'ua', file);
    mine.sources[0]!.changes[0]!.action = 'destroy';
    await writePlan(file, mine);
    await refused(world, dirA, 'ua', file, /"destroy".*"ua-one"|"ua-one".*"destroy"/);
  });

  it('refuses a plan that lists a source twice', async () => {
    const world = fixture.world;
    const { dirA, plans } = await twoSources('ta', 'tb');
    await writeTree(dirA, { 'policies/ta-one.yaml': 'enforcement-level: hard-mandatory\n' });
    const file = path.join(plans, 'a.json');
    const mine = await save(world, dirA, 'ta', file);
    mine.sources.push(mine.sources[0]!);
    await writePlan(file, mine);
    await refused(world, dirA, 'ta', file, /source "ta" twice/);
  });

  it('names the type of a saved_plan_version that is not a string', async () => {
    const world = fixture.world;
    const { dirA, plans } = await twoSources('va', 'vb');
    const file = path.join(plans, 'a.json');
    const mine = await save(world, dirA, 'va', file);
    mine.saved_plan_version = 1;
    await writePlan(file, mine);
    await refused(world, dirA, 'va', file, /saved_plan_version 1 \(a number\)/);
  });
});
