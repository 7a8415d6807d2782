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

it('a repo reader gives the loop a turn first, then every `every` steps, and sooner once a step has held it TURN_MS', async () => {
  const counted = turnTaker(3);
  const first = counted();
  assert.ok(first instanceof Promise, 'the first step takes a turn: a read starts in its own turn');
  await first;
  assert.deepEqual([counted(), counted()], [undefined, undefined]);
  assert.ok(counted() instanceof Promise, 'the third step after a turn takes a turn');
  const timed = turnTaker(1000);
  await timed();
  assert.equal(timed(), undefined);
  slowStep();
  const turn = timed();
  assert.ok(turn instanceof Promise, 'a step after TURN_MS of work takes a turn');
  await turn;
  assert.equal(timed(), undefined, 'the time counts from the last turn');
});

it('readers taking turns at once are resumed one a turn of the event loop, with the I/O and timers of a turn between them', async () => {
  // Asked for from a timer, as a pass started by its schedule asks.
  await new Promise((resolve) => setTimeout(resolve, 0));
  const order: string[] = [];
  const first = turnTaker(1);
  const second = turnTaker(1);
  const [a, b] = [first(), second()];
  assert.ok(a instanceof Promise && b instanceof Promise);
  const firstResumed = a.then(() => {
    order.push('first');
    // A timer due before the loop's next turn: it fires in that turn's timers phase, before the turn's check phase.
    setTimeout(() => order.push('timer'), 0);
    const until = performance.now() + 5;
    while (performance.now() < until) {
      // The timer comes due.
    }
  });
  await Promise.all([firstResumed, b.then(() => order.push('second'))]);
  await new Promise((resolve) => setTimeout(resolve, 0));
  assert.deepEqual(order, ['first', 'timer', 'second'], 'the second reader waits for the next turn, after its timers');
});
