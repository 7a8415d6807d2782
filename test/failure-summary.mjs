/**
 * A node --test reporter beside the one a person reads (test/run.mjs): one JSON line per failed test, naming its test
 * file and the path of its test's names, written to the file `--test-reporter-destination` gives. A suite that failed
 * only because a test in it did is not repeated; a hook's failure, a timeout and a file that cannot load are listed.
 * run.mjs prints these lines last, after thousands of lines of TAP, as `printFailures` below.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
/** A worker of the default tier runs each test file in a suite named after it (test/run.mjs). */
const WORKER = /[/\\]shards[/\\]worker-\d+\.test\.js$/;

/** The test file, from the repository's root, as a contributor opens it (the source, not what .test-build holds). */
function testFile(file) {
  return file === undefined ? '?' : path.relative(root, file).replace(/^\.test-build[/\\]/, '').replace(/\.js$/, '.ts');
}

/**
 * node --test reports the tests of one file in order, and the files one after the other, so the names of the tests now
 * running are one stack by nesting. A test's `file` is where it was declared: its own test file, or for the suite a
 * worker wraps each file in (and a file that cannot load), the worker, whose suite is named after the file.
 */
export default async function* failureSummary(source) {
  const names = [];
  let wrapper = null;
  for await (const event of source) {
    if (event.type !== 'test:start' && event.type !== 'test:fail') continue;
    const { name, nesting, file } = event.data;
    const error = event.data.details?.error;
    const reason = error?.failureType ?? 'testCodeFailure';
    // A worker that failed as a whole (its time ran out): which file it was running, its events do not say (a suite
    // still running is reported only once it ends); printFailures names the files it claimed and did not finish.
    if (event.type === 'test:fail' && nesting === 0 && WORKER.test(name) && reason !== 'subtestsFailed') {
      yield `${JSON.stringify({ file: null, test: path.basename(name), reason, message: String(error?.message ?? '').slice(0, 200) })}\n`;
      continue;
    }
    names.length = nesting;
    names.push(name);
    // The worker's own test (named by its path) is not a suite it wraps a file in.
    if (nesting === 0 && !WORKER.test(name)) wrapper = WORKER.test(file ?? '') ? name : null;
    if (event.type === 'test:start') continue;
    if (reason === 'subtestsFailed') continue;
    const where = wrapper !== null && (file === undefined || WORKER.test(file)) ? `test/${wrapper}.test.ts` : testFile(file);
    const message = String(error?.cause?.message ?? error?.message ?? '').split('\n').find((line) => line.trim() !== '') ?? '';
    yield `${JSON.stringify({ file: where, test: (wrapper === null ? names : names.slice(1)).join(' > '), reason, message: message.slice(0, 200) })}\n`;
  }
}

/**
 * The failed tests a run's summary file holds, as the last lines of its output ('' when none failed). `unfinished`:
 * the test files a worker took and never finished, named for a worker that failed as a whole.
 */
export function printFailures(summaryFile, unfinished = []) {
  let lines;
  try {
    lines = readFileSync(summaryFile, 'utf8').split('\n').filter((line) => line !== '').map((line) => JSON.parse(line));
  } catch {
    return '';
  }
  if (lines.length === 0) return '';
  for (const l of lines) {
    if (l.file !== null) continue;
    l.file = unfinished.length === 0 ? `a worker (${l.test})` : unfinished.map((name) => `test/${name}.test.ts`).join(', ');
    l.test = `still running when its worker (${l.test}) ended`;
  }
  const files = new Set(lines.map((l) => l.file));
  const shown = lines.slice(0, 40).map((l) => {
    const why = l.reason === 'testCodeFailure' ? '' : ` [${l.reason}]`;
    return `#   ${l.file}: ${l.test === '' ? '(the file)' : l.test}${why}${l.message === '' ? '' : `\n#       ${l.message}`}\n`;
  });
  const more = lines.length > 40 ? `#   and ${lines.length - 40} more\n` : '';
  return `# failed: ${lines.length} ${lines.length === 1 ? 'test' : 'tests'} in ${files.size} ${files.size === 1 ? 'file' : 'files'}\n${shown.join('')}${more}`;
}
