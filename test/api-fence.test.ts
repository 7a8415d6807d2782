/** Leader election's fence in the API client: asked before each request goes on the wire, retries included. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { NotLeaderError } from '../src/errors.js';
import { startApiFixture } from './helpers/api-fixture.js';

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
