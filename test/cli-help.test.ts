import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { OPTIONS } from '../src/cli/args.js';
import { ENV_OVERRIDES } from '../src/config/env.js';
import { packageVersion } from '../src/version.js';
import { runCli, spawnCli } from './helpers/cli.js';
import { REPO_ROOT } from './helpers/repo-root.js';

const SRC = join(REPO_ROOT, 'src');

describe('--help', () => {
  it('lists every flag the parser takes (a mode in its usage line), with its short form', async () => {
    const run = await runCli(['--help']);
    assert.equal(run.code, 0);
    for (const [name, option] of Object.entries(OPTIONS)) {
      assert.match(run.stdout, new RegExp(`^  (-\\w, |policy-pool-sync )?--${name}\\b`, 'm'), `--${name} is missing from --help`);
      if ('short' in option) assert.match(run.stdout, new RegExp(`-${option.short}, --${name}\\b`), `-${option.short} is missing`);
    }
  });

  it('lists every environment variable the tool reads, and the exit codes', async () => {
    const { stdout } = await runCli(['-h']);
    // Every env.NAME and env['NAME'] in the sources, but the Action's comment step (src/ci) and the terminal's TERM.
    const read = new Set<string>();
    for (const entry of await readdir(SRC, { recursive: true, withFileTypes: true })) {
      if (!entry.isFile() || !entry.name.endsWith('.ts') || entry.parentPath.startsWith(join(SRC, 'ci'))) continue;
      const text = await readFile(join(entry.parentPath, entry.name), 'utf8');
      for (const [, bracket, dot] of text.matchAll(/env(?:\[['"]([A-Z_]+)['"]\]|\.([A-Z][A-Z_]+))/g)) read.add((bracket ?? dot)!);
    }
    read.delete('TERM');
    assert.ok(read.size >= 8, [...read].join(', '));
    for (const name of [...read, ...ENV_OVERRIDES, 'API_TOKEN', 'WEBHOOK_SECRET', 'STATUS_TOKEN', 'LOG_LEVEL', 'LOG_FORMAT', 'NO_COLOR']) {
      assert.match(stdout, new RegExp(`^  ${name}\\b`, 'm'), `${name} is missing from --help`);
    }
    assert.match(stdout, /^Exit codes:\n  0 .*\n  1 .*\n  2 .*--detailed-exitcode/m);
  });

  it('-v and --version print the version of the package', async () => {
    for (const flag of ['-v', '--version']) {
      const run = await runCli([flag]);
      assert.deepEqual([run.code, run.stdout], [0, `${packageVersion()}\n`], flag);
    }
  });
});

describe('a mistyped flag', () => {
  const cases: Array<[string[], string]> = [
    [['--dry-run', '--sourcedir', 'x', '--organization', 'o'], 'unknown flag --sourcedir: did you mean --source-dir?'],
    [['--dry-run', '--source-dir', 'x', '--organisation', 'o'], 'unknown flag --organisation: did you mean --organization?'],
    [['--reconcile', '--detailed-exit-code'], 'unknown flag --detailed-exit-code: did you mean --detailed-exitcode?'],
    [['--dryrun'], 'unknown flag --dryrun: did you mean --dry-run?'],
    [['--dry-run', '--org', 'o'], 'unknown flag --org: did you mean --organization?'],
    [['--api_url=http://x/api/v2'], 'unknown flag --api_url: did you mean --api-url?'],
  ];
  for (const [argv, message] of cases) {
    it(`${argv.find((a) => a.startsWith('--') && !(a.slice(2).split('=')[0]! in OPTIONS))} gets a suggestion and exit 1`, async () => {
      const run = await runCli(argv);
      assert.equal(run.code, 1);
      assert.equal(run.stderr, `error: ${message}\nRun policy-pool-sync --help for every flag.\n`);
      assert.equal(run.stdout, '');
    });
  }

  it('a flag like no other gets no guess', async () => {
    const run = await runCli(['--frobnicate']);
    assert.equal(run.stderr, 'error: unknown flag --frobnicate\nRun policy-pool-sync --help for every flag.\n');
  });

  it('through the binary too', async () => {
    const run = await spawnCli(['--validate', '--sourcedir', '.']);
    assert.equal(run.code, 1);
    assert.match(run.stderr, /did you mean --source-dir\?/);
  });
});
