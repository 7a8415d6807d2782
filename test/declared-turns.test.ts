import assert from 'node:assert/strict';
import { it } from 'node:test';
import { turnTaker, TURN_MS } from '../src/declared/turns.js';

/** A step of synchronous work that takes longer than TURN_MS, as a large file or a slow disk does. */
function slowStep(): void {
  const until = performance.now() + TURN_MS + 1;
  while (performance.now() < until) {
    // Held, as a synchronous read holds the loop.
  }
}

it('a repo reader gives the loop a turn every `every` steps, and sooner once a step has held it TURN_MS', async () => {
  const counted = turnTaker(3);
  assert.deepEqual([counted(), counted()], [undefined, undefined]);
  assert.ok(counted() instanceof Promise, 'the third step takes a turn');
  const timed = turnTaker(1000);
  assert.equal(timed(), undefined);
  slowStep();
  const turn = timed();
  assert.ok(turn instanceof Promise, 'a step after TURN_MS of work takes a turn');
  await turn;
  assert.equal(timed(), undefined, 'the time counts from the last turn');
});
