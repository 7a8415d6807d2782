/**
 * A one-shot run and its signals: the built binary (`node dist/cli.js`) in a child process of its own, sent SIGINT or
 * SIGTERM while it reads (it stops at once, changing nothing) and while it applies (the pairs under way finish, what
 * was and was not applied is printed). A signal is the process's own, so these run in the end-to-end tier.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { startCli } from './helpers/cli.js';
import { ORG } from './helpers/emulator.js';
import { waitFor } from './helpers/wait.js';
import { useWorld } from './helpers/world.js';
import { manyPolicies } from './helpers/repos.js';

const POLICY = { 'policies/a.native': 'main = rule { true }\n' };


describe('a signal before the first write', () => {
  const fixture = useWorld();

  for (const [mode, signal, code] of [['--reconcile', 'SIGINT', 130], ['--dry-run', 'SIGTERM', 143]] as const) {
    it(`${mode} ${signal} while reading: stops at once, one line, exit ${code}, nothing changed`, async () => {
      const { world } = fixture;
      const dir = await fixture.repo(POLICY);
      // The list is answered only after the test's own timeout: a run that did not stop at the signal prints a plan.
      await world.addFaults({ kind: 'latency', method: 'GET', path: '/policies$', 'latency-ms': 600_000, count: 0 });
      try {
        const { child, done } = startCli([mode, '--source-dir', dir, '--organization', ORG, '--api-url', world.url], {
          env: { API_TOKEN: world.token, LOG_LEVEL: 'info', STATE_DIR: world.stateDir },
        });
        let logged = '';
        child.stderr?.on('data', (chunk: string) => (logged += chunk));
        await waitFor('the pass reading', () => (logged.includes('"phase":"reading"') ? true : undefined), 60_000);
        child.kill(signal);
        const { code: exitCode, stdout, stderr: all } = await done;
        const stderr = all.split('\n').filter((line) => !line.startsWith('{')).join('\n');
        assert.equal(exitCode, code, stdout + stderr);
        assert.equal(stdout, '');
        assert.match(stderr, /^interrupted while reading the declared repo and the live state; nothing was changed\n$/);
      } finally {
        await world.clearFaults();
      }
      assert.deepEqual(await world.writes(), []);
    });
  }
});

describe('a signal while applying', () => {
  const fixture = useWorld();

  for (const [signal, code] of [['SIGTERM', 143], ['SIGINT', 130]] as const) {
    it(`one-shot ${signal}: no new change, the pairs under way finish, what was and was not applied is printed, exit ${code}`, async () => {
      const { world } = fixture;
      const prefix = signal.toLowerCase();
      const dir = await fixture.repo(manyPolicies(60, prefix));
      // Slow writes, so the run is still applying when the signal comes.
      await world.addFaults({ kind: 'latency', method: 'POST', 'latency-ms': 150, count: 0 }, { kind: 'latency', method: 'PUT', 'latency-ms': 150, count: 0 });
      let run: { code: number | null; stdout: string; stderr: string };
      try {
        const { child, done } = startCli(['--reconcile', '--source-dir', dir, '--organization', ORG, '--api-url', world.url], {
          env: { API_TOKEN: world.token, LOG_LEVEL: 'warn' },
        });
        await waitFor('the first policies created', async () => {
          const made = (await world.organization()).policies.filter((p) => String(p['name']).startsWith(`${prefix}-`));
          return made.length >= 10 ? true : undefined;
        });
        child.kill(signal);
        run = await done;
      } finally {
        await world.clearFaults();
      }
      assert.equal(run.code, code, run.stdout + run.stderr);
      assert.match(run.stdout, /Applied source "default": \d+ created/);
      assert.match(run.stdout, new RegExp(`create policy "${prefix}-\\d+": not applied`));
      const made = (await world.organization()).policies.filter((p) => String(p['name']).startsWith(`${prefix}-`));
      assert.ok(made.length < 60, 'the run stopped before the end');
      assert.deepEqual(made.filter((p) => p['code'] === null).map((p) => p['name']), [], 'every policy created has its code');

      const next = await world.cli('--reconcile', dir);
      assert.equal(next.code, 0, next.stdout + next.stderr);
      assert.equal((await world.organization()).policies.filter((p) => String(p['name']).startsWith(`${prefix}-`)).length, 60);
    });
  }
});
