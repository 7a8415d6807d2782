/**
 * What a person reads of a one-shot run, on a terminal and in a CI log: each error once, a stale saved plan said as
 * such, no log record that repeats the plan, and readable log lines in CI (JSON only when asked for).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { runCli, startCli, type CliRun } from './helpers/cli.js';
import { ORG } from './helpers/emulator.js';
import { writeTree } from './helpers/temp-tree.js';
import { useWorld } from './helpers/world.js';

describe('the one-shot modes as a person reads them', () => {
  const fixture = useWorld();

  function run(mode: string, dir: string, extra: string[], env: Record<string, string> = {}, terminal = false): Promise<CliRun> {
    const { world } = fixture;
    return runCli([mode, '--source-dir', dir, '--organization', ORG, '--api-url', world.url, ...extra], {
      env: { API_TOKEN: world.token, LOG_LEVEL: 'info', STATE_DIR: world.stateDir, ...env },
      terminal,
    });
  }

  /** A saved plan of one update, made stale by a change to the live policy. */
  async function staleSavedPlan(name: string): Promise<{ dir: string; file: string }> {
    const { world } = fixture;
    const dir = await fixture.repo({ [`policies/${name}.native`]: 'main = rule { true }\n', [`policies/${name}.yaml`]: 'enforcement-level: advisory\n' });
    assert.equal((await run('--reconcile', dir, ['--source', name])).code, 0);
    await writeTree(dir, { [`policies/${name}.yaml`]: 'enforcement-level: hard-mandatory\n' });
    const file = path.join(await fixture.repo(), 'plan.json');
    assert.equal((await run('--dry-run', dir, ['--source', name, '--out', file])).code, 0);
    const policy = (await world.policies()).find((p) => p.name === name);
    const edited = await world.call('PATCH', `/policies/${policy?.id ?? ''}`, { body: { data: { type: 'policies', attributes: { description: 'by hand' } } } });
    assert.equal(edited.status, 200, edited.text);
    return { dir, file };
  }

  /** A stale saved plan applied on a terminal, once for the three tests that read it. */
  let onTerminal: Promise<CliRun> | null = null;
  function staleOnTerminal(): Promise<CliRun> {
    onTerminal ??= (async () => {
      const { dir, file } = await staleSavedPlan('stale-terminal');
      await fixture.world.clearRequests();
      const applied = await run('--reconcile', dir, ['--source', 'stale-terminal', '--plan', file], {}, true);
      assert.equal(applied.code, 1, applied.stdout + applied.stderr);
      assert.deepEqual(await fixture.world.writes(), [], 'no write');
      return applied;
    })();
    return onTerminal;
  }

  it('a stale saved plan says that it is stale, that nothing was applied, and why; not "No changes"', async () => {
    const applied = await staleOnTerminal();
    assert.match(applied.stdout, /The saved plan was not applied: it is stale: the live state or the declared repo changed since it was made\./);
    assert.match(applied.stdout, /stale: update policy "stale-terminal": the live policy changed since the plan was made/);
    assert.match(applied.stdout, /Nothing was applied \(see the errors above\)\. Make a new plan\./);
    assert.doesNotMatch(`${applied.stdout}${applied.stderr}`, /No changes/, 'a refused plan is not "no changes"');
  });

  it('on a terminal, each error is printed once: in the plan, not again on stderr', async () => {
    const applied = await staleOnTerminal();
    const screen = `${applied.stdout}${applied.stderr}`;
    const occurrences = screen.split('the live policy changed since the plan was made').length - 1;
    assert.equal(occurrences, 1, `each error once on the screen:\n${screen}`);
    assert.doesNotMatch(applied.stderr, /^error: /m);
  });

  it('on a terminal, no INFO "plan made" line sits above the plan', async () => {
    const applied = await staleOnTerminal();
    assert.match(applied.stdout, /Source "stale-terminal"/);
    assert.doesNotMatch(`${applied.stdout}${applied.stderr}`, /plan made/);
  });

  it('off a terminal, the errors are still written to stderr, one line each, for a log that holds stderr only', async () => {
    const { dir, file } = await staleSavedPlan('stale-piped');
    const applied = await run('--reconcile', dir, ['--source', 'stale-piped', '--plan', file], { LOG_LEVEL: 'error' });
    assert.equal(applied.code, 1);
    assert.match(applied.stderr, /^error: the saved plan is stale: 1 of its changes no longer match/m);
    assert.match(applied.stderr, /^error: stale: update policy "stale-piped"/m);
  });

  for (const ci of [{ CI: 'true' }, { GITHUB_ACTIONS: 'true' }] as Array<Record<string, string>>) {
    it(`in CI (${Object.keys(ci)[0]}), stderr holds readable lines, and no record per applied change beside the plan`, async () => {
      const files: Record<string, string> = {};
      for (let i = 0; i < 5; i += 1) files[`policies/ci-${Object.keys(ci)[0]}-${i}.native`] = `main = rule { ${i} >= 0 }\n`;
      const dir = await fixture.repo(files);
      const applied = await run('--reconcile', dir, [], ci);
      assert.equal(applied.code, 0, applied.stderr);
      assert.match(applied.stdout, /Apply complete! Resources: 5 created/);
      const lines = applied.stderr.split('\n').filter((l) => l.trim() !== '' && !l.startsWith('::'));
      assert.ok(lines.length > 0, 'something is logged at info');
      for (const line of lines) assert.ok(!line.startsWith('{'), `a readable line, not JSON: ${line}`);
      assert.doesNotMatch(applied.stderr, /change applied|plan made|api requests/);
    });
  }

  /**
   * With `--output markdown` or `json`, stdout is data (`plan=$(…)`, a file the Action posts): a refused token is on
   * stderr in plain words whatever stdout is, once there, and once in the Markdown.
   */
  const REFUSED = /^error: reading the live state of organization example-org failed: the API refused the token \(.*401.*\): check API_TOKEN/m;
  const destinationsOfStdout = {
    /** The built binary, its stdout a real pipe, as `$(…)` and a CI step's capture give it. */
    pipe: (argv: string[], env: Record<string, string>) => startCli(argv, { env }).done,
    /** stdout a file (`> plan.md`). */
    file: async (argv: string[], env: Record<string, string>) => {
      const dir = mkdtempSync(path.join(tmpdir(), 'pps-stdout-'));
      try {
        return await runCli(argv, { env, stdoutFile: path.join(dir, 'plan') });
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
    terminal: (argv: string[], env: Record<string, string>) => runCli(argv, { env, terminal: true }),
  };
  for (const output of ['markdown', 'json']) {
    for (const [stdout, runWith] of Object.entries(destinationsOfStdout)) {
      it(`--output ${output}, stdout a ${stdout}: an error is on stderr in plain words, once`, async () => {
        const { world } = fixture;
        const dir = await fixture.repo({ [`policies/refused-${output}-${stdout}.native`]: 'main = rule { true }\n' });
        const argv = ['--dry-run', '--output', output, '--source-dir', dir, '--organization', ORG, '--api-url', world.url];
        const refused = await runWith(argv, { API_TOKEN: 'not-the-token', LOG_LEVEL: 'error', STATE_DIR: world.stateDir });
        assert.equal(refused.code, 1, refused.stdout + refused.stderr);
        // On a terminal, the progress line is cleared before each line written above it.
        assert.match(refused.stderr.replace(/\r?\x1b\[2K/g, '\n'), REFUSED);
        assert.equal(refused.stderr.split('the API refused the token').length - 1, 1, `once on stderr:\n${refused.stderr}`);
        assert.equal(refused.stdout.split('the API refused the token').length - 1, 1, `once in the ${output} on stdout:\n${refused.stdout}`);
        assert.doesNotMatch(refused.stdout + refused.stderr, /not-the-token/);
      });
    }
  }

  it('in CI, LOG_FORMAT=json keeps JSON lines', async () => {
    const dir = await fixture.repo({ 'policies/ci-json.native': 'main = rule { true }\n' });
    const applied = await run('--reconcile', dir, [], { CI: 'true', LOG_FORMAT: 'json' });
    assert.equal(applied.code, 0, applied.stderr);
    const records = applied.stderr.split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as { msg: string });
    assert.ok(records.some((r) => r.msg === 'change applied'), 'JSON logs keep each change');
  });
});
