/**
 * A dry run against an endless list of 3.8 MB pages (the emulator's `fat-pages` fault) ends with an error naming the
 * list and its 64 MiB limit, and no plan, well before the memory limit (bench/list-memory.ts measures its peak RSS).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ORG } from './helpers/emulator.js';
import { useWorld } from './helpers/world.js';

describe('a dry run against an endless list of 3.8 MB pages', () => {
  const fixture = useWorld();

  it('ends with the list, the limit and no plan, well before the memory limit', async () => {
    const { world } = fixture;
    const dir = await fixture.repo({ 'policies/seen.native': 'main = rule { true }\n' });
    assert.equal((await world.cli('--reconcile', dir)).code, 0);
    await world.addFaults({ kind: 'fat-pages', method: 'GET', path: `^/organizations/${ORG}/policies$`, count: 0 });
    const plan = await world.cli('--dry-run', dir);
    assert.equal(plan.code, 1, plan.stdout + plan.stderr);
    assert.match(plan.stdout + plan.stderr, new RegExp(`the list /organizations/${ORG}/policies is larger than the 64 MiB of answers a list may take \\(6[4-9]\\.\\d MiB in 1[78] pages\\); it is not read further`));
    await world.clearFaults();
  });
});
