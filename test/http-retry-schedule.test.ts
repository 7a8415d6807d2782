/** The one retry engine's schedule: back-off, `Retry-After`, tries and budget, as the transport, notifications and the daemon use it. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { RetrySchedule } from '../src/http/retry.js';

test('the waits double up to the cap, an asked wait wins, and the tries end it', () => {
  const schedule = new RetrySchedule({ initialMs: 100, maxMs: 350, jitter: 'none', attempts: 5 }, () => 0.5, () => 0);
  assert.equal(schedule.failure(), 100);
  assert.equal(schedule.failure(), 200);
  assert.equal(schedule.failure(2_000), 2_000, 'a Retry-After is waited as asked');
  assert.equal(schedule.failure(), 350, 'capped');
  assert.equal(schedule.failure(), null, 'five tries in all: the fifth failure is the last');
  assert.equal(schedule.failures, 5);
  schedule.reset();
  assert.equal(schedule.failure(), 100, 'a success starts over');
});

test('the budget counts from the first failure in a row and cuts the last wait', () => {
  let now = 1_000;
  const schedule = new RetrySchedule({ initialMs: 400, maxMs: 10_000, jitter: 'half', attempts: Infinity, budgetMs: 1_000 }, () => 0, () => now);
  assert.equal(schedule.failure(), 200, 'half fixed, half random (random 0)');
  now += 900;
  assert.equal(schedule.failure(), 100, 'cut to what is left of the budget');
  assert.equal(schedule.failingForMs, 900);
  now += 100;
  assert.equal(schedule.failure(), null, 'spent');
});
