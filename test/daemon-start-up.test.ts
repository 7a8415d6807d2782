import './helpers/no-mock-timers-warning.js';
import assert from 'node:assert/strict';
import { setImmediate as turn } from 'node:timers/promises';
import { describe, it } from 'node:test';
import { staggeredStartUp } from '../src/daemon/start-up.js';

/** Items whose start ends when the test says; `started` lists them in the order they started. */
function items(count: number, periodMs: number | null) {
  const started: number[] = [];
  const finish: Array<() => void> = [];
  const list = Array.from({ length: count }, (_, index) => ({
    periodMs,
    start: () => new Promise<void>((resolve) => {
      started.push(index);
      finish[index] = resolve;
    }),
  }));
  return { list, started, finish };
}

const turns = async (n = 5) => {
  for (let i = 0; i < n; i += 1) await turn();
};

describe('the start of many sources', () => {
  it('starts a few at a time, the next as soon as one is done, and is done once every one is', async () => {
    const { list, started, finish } = items(10, null);
    const startUp = staggeredStartUp(list, 4);
    let done = false;
    void startUp.done.then(() => (done = true));
    await turns();
    assert.deepEqual(started, [0, 1, 2, 3]);
    finish[2]!();
    await turns();
    assert.deepEqual(started, [0, 1, 2, 3, 4]);
    for (let i = 0; i < 10; i += 1) {
      finish[i]?.();
      await turns();
    }
    for (let i = 0; i < 10; i += 1) finish[i]?.();
    await startUp.done;
    assert.equal(done, true);
    assert.deepEqual([...started].sort((a, b) => a - b), [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });

  it('starts each no later than its slot in its first schedule period, however long the others take', async (t) => {
    t.mock.timers.enable({ apis: ['setTimeout'] });
    const { list, started } = items(4, 60_000);
    const startUp = staggeredStartUp(list, 1);
    await turns();
    assert.deepEqual(started, [0]);
    t.mock.timers.tick(15_000);
    await turns();
    assert.deepEqual(started, [0, 1], 'source 1 of 4 at a quarter of the period');
    t.mock.timers.tick(30_000);
    await turns();
    assert.deepEqual(started, [0, 1, 2, 3]);
    startUp.stop();
  });

  it('keeps no slot past the longest timer (a yearly schedule): those sources start in turn, and Node warns of no overflow', async (t) => {
    const warnings: string[] = [];
    const onWarning = (warning: Error) => warnings.push(warning.name);
    process.on('warning', onWarning);
    t.after(() => process.off('warning', onWarning));
    const { list, started, finish } = items(4, 365 * 24 * 3600 * 1000);
    const startUp = staggeredStartUp(list, 1);
    await turns();
    assert.deepEqual(started, [0]);
    assert.deepEqual(warnings, [], 'a slot of months would overflow the timer and fire after 1 ms');
    for (let i = 0; i < 4; i += 1) {
      finish[i]?.();
      await turns();
    }
    assert.deepEqual(started, [0, 1, 2, 3], 'each in turn');
    await startUp.done;
  });
});
