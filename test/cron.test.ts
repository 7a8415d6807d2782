import './helpers/no-mock-timers-warning.js';
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseConfig } from '../src/config/index.js';
import { parseCron } from '../src/cron.js';
import { startSchedule } from '../src/daemon/schedule.js';
import { silentLogger } from '../src/logger.js';

test('one cron dialect: 5 or 6 fields, names, 7 as Sunday, either day field when both are restricted', () => {
  const next = (expression: string, from: string) => parseCron(expression, 'UTC').next(new Date(from))?.toISOString();
  assert.equal(next('*/1 * * * *', '2026-01-01T00:00:30Z'), '2026-01-01T00:01:00.000Z');
  assert.equal(next('*/10 * * * * *', '2026-01-01T00:00:01Z'), '2026-01-01T00:00:10.000Z', 'seconds first');
  assert.equal(next('0 9 * * mon-fri', '2026-01-03T00:00:00Z'), '2026-01-05T09:00:00.000Z', 'Saturday to Monday');
  assert.equal(next('0 0 * * 7', '2026-01-01T00:00:00Z'), '2026-01-04T00:00:00.000Z', '7 is Sunday');
  // The 15th (a Thursday) or a Monday, whichever comes first.
  assert.equal(next('0 0 15 * mon', '2026-01-13T00:00:00Z'), '2026-01-15T00:00:00.000Z');
  assert.equal(next('0 0 15 * mon', '2026-01-16T00:00:00Z'), '2026-01-19T00:00:00.000Z');
  assert.equal(parseCron('0 12 * * *', 'UTC').previous(new Date('2026-01-01T12:00:00Z'))?.toISOString(), '2026-01-01T12:00:00.000Z', 'now included');
  assert.throws(() => parseCron('0 0 * *'), /"0 0 \* \*" is not a valid cron expression/);
  assert.throws(() => parseCron('0 0 * * *', 'Mars/Base'), /"Mars\/Base" is not a time zone/);
});

test('a schedule that never occurs is a config problem naming its key', async () => {
  const config = [
    'api: { url: "http://127.0.0.1:1/api/v2" }',
    'sources:',
    '  - { name: a, organization: org, path: ".", schedule: "0 0 31 2 *" }',
    '  - { name: b, organization: org, path: ".", schedule: "0 0 * * fri-mon" }',
  ].join('\n');
  await assert.rejects(parseConfig(config, 'cfg.yaml', {}), (error: Error & { problems?: unknown }) => {
    const text = JSON.stringify(error) + error.message;
    assert.match(text, /sources\[0\]\.schedule \\?"0 0 31 2 \*\\?" never occurs/);
    assert.match(text, /sources\[1\]\.schedule \\?"0 0 \* \* fri-mon\\?" has a range that runs backwards/);
    return true;
  });
});

/** croner arms its next timer once the tick's callback has settled. */
const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

test('a schedule ticks at each occurrence (mocked clock), with its jitter, and stops', async (t) => {
  /** croner re-arms its timer at least every 30 s; the clock moves in steps, as it would. */
  const advance = async (ms: number) => {
    for (let done = 0; done < ms; done += 5_000) {
      t.mock.timers.tick(Math.min(5_000, ms - done));
      await settle();
    }
  };
  t.mock.timers.enable({ apis: ['setTimeout', 'Date'], now: new Date('2026-01-01T00:00:30Z') });
  let ticks = 0;
  const schedule = startSchedule({ name: 'main', expression: '*/1 * * * *', onTick: () => (ticks += 1), logger: silentLogger(), random: () => 0.5, maxJitterMs: 1000 });
  assert.equal(schedule.nextRun()?.toISOString(), '2026-01-01T00:01:00.000Z');
  await advance(30_000);
  assert.equal(ticks, 0, 'the jitter delays the tick');
  await advance(500);
  assert.equal(ticks, 1);
  await advance(61_000);
  assert.equal(ticks, 2, 'the next minute');
  await schedule.stop();
  await advance(120_000);
  assert.equal(ticks, 2);
});

test("a schedule's jitter is at most a tenth of the time to its next tick (mocked clock)", async (t) => {
  t.mock.timers.enable({ apis: ['setTimeout', 'Date'], now: new Date('2026-01-01T00:00:05Z') });
  let ticks = 0;
  const schedule = startSchedule({ name: 'main', expression: '*/10 * * * * *', onTick: () => (ticks += 1), logger: silentLogger(), random: () => 0.5 });
  t.after(() => schedule.stop());
  t.mock.timers.tick(5_000);
  await settle();
  t.mock.timers.tick(499);
  await settle();
  assert.equal(ticks, 0, 'half of a tenth of 10 s: 500 ms');
  t.mock.timers.tick(1);
  await settle();
  assert.equal(ticks, 1, 'the default bound of 3 s does not apply to a 10 s schedule');
});
