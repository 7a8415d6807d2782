/** Leader election's fence in the API client: asked before each request goes on the wire, retries included. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { NotLeaderError } from '../src/errors.js';
import { startApiFixture } from './helpers/api-fixture.js';
import { VirtualClock } from './helpers/virtual-clock.js';

test('a request the fence refuses never reaches the API and is not retried; one it lets through does', async (t) => {
  let holds = true;
  const fixture = await startApiFixture(undefined, {
    fence: () => {
      if (!holds) throw new NotLeaderError('not sent: this replica does not hold the lease');
    },
  });
  t.after(() => fixture.close());
  await fixture.client.listPolicies('acme');
  const sent = (await fixture.emulator.requests()).length;
  assert.ok(sent > 0);
  holds = false;
  await assert.rejects(fixture.client.listPolicies('acme'), { name: 'NotLeaderError' });
  assert.equal((await fixture.emulator.requests()).length, sent, 'nothing more reached the API');
  assert.equal(fixture.client.stats().retries, 0);
});

test('the fence is asked after the wait for the rate limit: a request held by the pacer when the lease is lost is never sent', async (t) => {
  let holds = true;
  const clock = new VirtualClock();
  const fixture = await startApiFixture(undefined, {
    clock,
    rateLimit: 1,
    fence: () => {
      if (!holds) throw new NotLeaderError('not sent: this replica does not hold the lease');
    },
  });
  t.after(() => fixture.close());
  const first = fixture.client.listPolicies('acme');
  await clock.advance(1_000);
  await first;
  const sent = (await fixture.emulator.requests()).length;
  const held = fixture.client.listPolicies('acme').then(() => 'sent', (e: unknown) => e);
  // The second request now waits for its start slot, a second after the first one's.
  await clock.advance(0);
  holds = false;
  await clock.advance(5_000);
  const outcome = await held;
  assert.ok(outcome instanceof NotLeaderError, `refused by the fence, got ${String(outcome)}`);
  assert.equal((await fixture.emulator.requests()).length, sent, 'nothing more reached the API');
});
