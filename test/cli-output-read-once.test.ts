/**
 * Output a team reads every day: each error once, naming its file and line; log lines that sit readably among the plan's
 * in a pipe; figures rounded; no `Plan:` line over errors that block it.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { Writable } from 'node:stream';
import { describe, it } from 'node:test';
import { promisify } from 'node:util';
import { createLogger } from '../src/logger.js';
import { CLI, startCli } from './helpers/cli.js';
import { ORG } from './helpers/emulator.js';
import { useWorld } from './helpers/world.js';

const run = promisify(execFile);
const quote = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;

/** A pool whose access list names a workspace the organization does not have, on the file's third line. */
const TYPO_POOL = { 'agent-pools/builders.yaml': 'organization-scoped: false\nallowed-workspaces:\n  - app-prd\n' };

describe('the one-shot output a person reads', () => {
  const fixture = useWorld();

  it('a name that matches nothing names its file and line: a pool, a set\'s scope, a policy\'s sets', async () => {
    const { world } = fixture;
    const dir = await fixture.repo({
      ...TYPO_POOL,
      'policy-sets/prod.yaml': 'description: prod\nworkspaces:\n  - app-prod\n  - app-stge\n',
      'policies/tags.native': 'main = rule { true }\n',
      'policies/tags.yaml': 'enforcement-level: advisory\npolicy-sets: [prod, prd]\n',
    });
    const plan = await world.cli('--dry-run', dir, ['--output', 'markdown'], 'warn', { GITHUB_ACTIONS: 'true' });
    assert.equal(plan.code, 1, plan.stdout + plan.stderr);
    assert.match(plan.stdout, /agent-pools\/builders\.yaml:3: agent pool "builders": allowed-workspaces "app-prd" names nothing in the organization/);
    assert.match(plan.stdout, /policy-sets\/prod\.yaml:4: policy set "prod": workspaces "app-stge" names nothing in the organization/);
    assert.match(plan.stdout, /policies\/tags\.yaml:2: policy "tags" names policy set "prd", which neither the organization nor this repo has/);
    // The annotation points at the line, as every other problem of the declared repo does.
    assert.match(plan.stderr, /^::error file=[^,]*agent-pools\/builders\.yaml,line=3::agent pool "builders": allowed-workspaces "app-prd"/m);
  });

  it('in a pipe, a text plan\'s errors are read in the plan, not again on stderr; a plan to a file or as JSON has them there too, with no ../ climb', async () => {
    const { world } = fixture;
    const dir = await fixture.repo(TYPO_POOL);
    const env = { API_TOKEN: world.token, LOG_LEVEL: 'warn', STATE_DIR: world.stateDir };
    const argv = ['--dry-run', '--source-dir', dir, '--organization', ORG, '--api-url', world.url];
    const piped = await startCli(argv, { env, cwd: world.stateDir }).done;
    assert.equal(piped.code, 1);
    assert.match(piped.stdout, /agent-pools\/builders\.yaml:3: agent pool "builders"/);
    assert.doesNotMatch(piped.stderr, /names nothing/, `each error once:\n${piped.stderr}`);

    const json = await startCli([...argv, '--output', 'json'], { env, cwd: world.stateDir }).done;
    assert.match(json.stderr, new RegExp(`^error: ${dir}/agent-pools/builders\\.yaml:3: agent pool "builders": allowed-workspaces "app-prd" names nothing`, 'm'));
    assert.doesNotMatch(json.stderr, /\.\.\//);
  });

  it('stdout and stderr into one pipe (2>&1 | cat): readable log lines among the plan\'s, not JSON', async () => {
    const { world } = fixture;
    const dir = await fixture.repo({ 'policies/piped.native': 'main = rule { true }\n' });
    const command = [process.execPath, CLI, '--dry-run', '--source-dir', dir, '--organization', ORG, '--api-url', world.url].map(quote).join(' ');
    const { stdout } = await run('sh', ['-c', `${command} 2>&1 | cat`], {
      env: { PATH: process.env['PATH'] ?? '', NO_COLOR: '1', API_TOKEN: world.token, LOG_LEVEL: 'info', STATE_DIR: world.stateDir },
    });
    assert.match(stdout, /Plan: 1 to create/);
    assert.match(stdout, /reading the declared repo/, 'the log is there');
    assert.doesNotMatch(stdout, /^\{"level"/m);
    assert.doesNotMatch(stdout, /plan made|api requests/, 'no record that repeats the plan beside it');
  });

  it('no Plan: line over errors that block it: the closing line says they block the planned change', async () => {
    const { world } = fixture;
    const dir = await fixture.repo({ 'policies/held.native': 'main = rule { true }\n', ...TYPO_POOL });
    const plan = await world.cli('--dry-run', dir);
    assert.equal(plan.code, 1);
    assert.match(plan.stdout, /will be created/);
    assert.doesNotMatch(plan.stdout, /^Plan: /m);
    assert.match(plan.stdout, /^No plan to apply: the errors above block 2 planned changes\.$/m);
  });

  it('JSON log lines round fractions to three decimals', () => {
    const lines: string[] = [];
    const stream = new Writable({ write: (chunk: Buffer, _encoding, done) => void (lines.push(chunk.toString()), done()) });
    const logger = createLogger({ format: 'json', stream: { write: (line: string) => void stream.write(line) } });
    logger.info({ rateLimitWaitSeconds: 0.0786589710000003, nested: { seconds: 1.23456 }, whole: 7 }, 'api requests');
    const record = JSON.parse(lines.join('')) as Record<string, unknown>;
    assert.equal(record['rateLimitWaitSeconds'], 0.079);
    assert.deepEqual(record['nested'], { seconds: 1.235 });
    assert.equal(record['whole'], 7);
  });
});
