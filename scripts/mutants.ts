/**
 * The guards as data: each mutant of `test/mutants.json` removes or inverts one safety line, named by an exact source
 * snippet and its replacement (never a line number, so it survives unrelated edits). Each is applied on its own in a
 * scratch copy of the repository, its test files are run there from the sources (`node --import tsx --test`), and the
 * mutant is killed when they fail. A snippet no longer found, or found more than once, is reported as such.
 *
 *   npm run mutants                       # every mutant, one at a time
 *   npm run mutants -- redact logger      # the mutants whose id contains one of the words
 *   npm run mutants -- --baseline redact  # first checks that their test files pass unmutated
 *   npm run mutants -- --check            # only checks that every snippet is found, once
 *
 * It is CPU heavy: run a few at a time, at low priority (`nice npm run mutants -- WORD`). Exits 1 when a mutant
 * survives or its snippet is not found.
 */
import { spawn } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';

/** One mutant of test/mutants.json. */
export interface Mutant {
  /** Short, unique, kebab-case. */
  id: string;
  /** The property the guard keeps, as a reader of the table wants it. */
  guard: string;
  /** The source file, from the repository's root. */
  file: string;
  /** The exact text mutated; it must occur once in `file`. */
  find: string;
  /** What replaces it. */
  replace: string;
  /** Test files, from the repository's root, run against the mutant: one failing kills it. */
  tests: string[];
  /** `--test-name-pattern`: only the tests whose name matches run. */
  testName?: string;
  /**
   * Whether the copy is built (`dist/`) after the mutation, for tests that spawn the built command line. @default
   * whether a test file names `spawnCli`, `startCli`, `spawnDaemon` or `dist/cli`
   */
  build?: boolean;
}

type Outcome = 'killed' | 'survived' | 'not found' | 'found twice' | 'tests fail unmutated' | 'does not build';

const ROOT = resolve(import.meta.dirname, '..');
const SKIPPED = new Set(['node_modules', '.git', 'dist', '.test-build', 'test-output', '.policy-pool-sync']);

/** The repository as it is on disk now (committed or not), without what is built or installed; node_modules linked. */
function scratchCopy(): string {
  const dir = mkdtempSync(join(tmpdir(), 'pps-mutants-'));
  cpSync(ROOT, dir, { recursive: true, filter: (from) => !SKIPPED.has(relative(ROOT, from).split('/')[0] ?? '') });
  symlinkSync(realpathSync(join(ROOT, 'node_modules')), join(dir, 'node_modules'));
  return dir;
}

/** Runs a command in `cwd`; resolves with its exit code and the end of what it wrote. */
function run(cwd: string, command: string, args: string[]): Promise<{ code: number; tail: string }> {
  return new Promise((done) => {
    const child = spawn(command, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    const keep = (chunk: Buffer) => void (out = (out + chunk.toString('utf8')).slice(-4000));
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    child.on('close', (code) => done({ code: code ?? 1, tail: out }));
  });
}

/** Tests that run the built command line in a child process. */
const SPAWNS = /spawnCli|startCli|spawnDaemon|dist\/cli/;

/** Whether the test files pass in `dir` (built first when they run the built command line); null when it does not build. */
async function testsPass(dir: string, mutant: Mutant): Promise<boolean | null> {
  if (mutant.build ?? mutant.tests.some((test) => SPAWNS.test(readFileSync(join(dir, test), 'utf8')))) {
    const built = await run(dir, process.execPath, [join(dir, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json', '--noCheck']);
    if (built.code !== 0) {
      process.stderr.write(`${mutant.id}: the build failed\n${built.tail}\n`);
      return null;
    }
  }
  const name = mutant.testName === undefined ? [] : ['--test-name-pattern', mutant.testName];
  const result = await run(dir, process.execPath, ['--import', 'tsx', '--test', '--test-timeout=180000', '--test-concurrency=1', ...name, ...mutant.tests]);
  return result.code === 0;
}

async function tryMutant(dir: string, mutant: Mutant, baseline: boolean): Promise<Outcome> {
  const path = join(dir, mutant.file);
  const original = readFileSync(path, 'utf8');
  const found = original.split(mutant.find).length - 1;
  if (found === 0) return 'not found';
  if (found > 1) return 'found twice';
  if (baseline && (await testsPass(dir, mutant)) !== true) return 'tests fail unmutated';
  writeFileSync(path, original.replace(mutant.find, () => mutant.replace));
  try {
    const passed = await testsPass(dir, mutant);
    return passed === null ? 'does not build' : passed ? 'survived' : 'killed';
  } finally {
    writeFileSync(path, original);
  }
}

function table(rows: Array<{ mutant: Mutant; outcome: Outcome; seconds: number }>): string {
  const cell = (text: string) => text.replaceAll('|', '\\|').replaceAll('\n', ' ');
  const lines = ['| mutant | guard | file | tests | outcome | s |', '|---|---|---|---|---|---|'];
  for (const { mutant, outcome, seconds } of rows) {
    const tests = mutant.tests.map((t) => t.replace(/^test\//, '')).join(', ') + (mutant.testName === undefined ? '' : ` (${mutant.testName})`);
    lines.push(`| ${mutant.id} | ${cell(mutant.guard)} | ${mutant.file} | ${cell(tests)} | ${outcome} | ${seconds.toFixed(0)} |`);
  }
  return lines.join('\n');
}

function checkSnippets(all: readonly Mutant[]): number {
  const ids = new Set<string>();
  let bad = 0;
  for (const mutant of all) {
    const found = readFileSync(join(ROOT, mutant.file), 'utf8').split(mutant.find).length - 1;
    const problem = ids.has(mutant.id) ? 'id used twice' : found === 0 ? 'not found' : found > 1 ? 'found twice' : null;
    ids.add(mutant.id);
    if (problem === null) continue;
    bad += 1;
    process.stdout.write(`${mutant.id}: ${problem} in ${mutant.file}\n`);
  }
  process.stdout.write(`${all.length} mutants, ${all.length - bad} found once\n`);
  return bad === 0 ? 0 : 1;
}

async function main(args: string[]): Promise<number> {
  const baseline = args.includes('--baseline');
  const words = args.filter((a) => !a.startsWith('--'));
  const all = JSON.parse(readFileSync(join(ROOT, 'test/mutants.json'), 'utf8')) as Mutant[];
  if (args.includes('--check')) return checkSnippets(all);
  const chosen = words.length === 0 ? all : all.filter((m) => words.some((w) => m.id.includes(w)));
  if (chosen.length === 0) {
    process.stderr.write(`no mutant's id contains ${words.join(' or ')}\n`);
    return 2;
  }
  const dir = scratchCopy();
  const rows: Array<{ mutant: Mutant; outcome: Outcome; seconds: number }> = [];
  try {
    for (const mutant of chosen) {
      const started = performance.now();
      const outcome = await tryMutant(dir, mutant, baseline);
      rows.push({ mutant, outcome, seconds: (performance.now() - started) / 1000 });
      process.stderr.write(`${mutant.id}: ${outcome}\n`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  process.stdout.write(`${table(rows)}\n\n`);
  const counts = new Map<Outcome, number>();
  for (const { outcome } of rows) counts.set(outcome, (counts.get(outcome) ?? 0) + 1);
  process.stdout.write(`${rows.length} mutants: ${[...counts].map(([outcome, n]) => `${n} ${outcome}`).join(', ')}\n`);
  return rows.every((r) => r.outcome === 'killed') ? 0 : 1;
}

process.exitCode = await main(process.argv.slice(2));
