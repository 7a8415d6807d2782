import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { describe, it } from 'node:test';
import { REPO_ROOT } from './helpers/repo-root.js';

const ROOT = REPO_ROOT;
const GUARD = path.join(ROOT, 'src/cli/exit-guard.ts');

/** Runs `body` as an ES module with the guard imported as `exitWhenSettled`, in a child process. */
function runGuarded(body: string): Promise<{ code: number | null; stderr: string }> {
  const script = `import { exitWhenSettled } from ${JSON.stringify(GUARD)};\n${body}`;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stderr }));
  });
}

describe('the command line exits with its code only once it has finished', () => {
  it('a run whose promise never settles, with nothing left to wait for, exits 1 with a message instead of 0', async () => {
    // What a request lost inside a connection pool looks like to the process: a promise nothing will ever settle.
    const run = await runGuarded('exitWhenSettled(new Promise(() => {}), process.stderr);');
    assert.equal(run.code, 1, run.stderr);
    assert.match(run.stderr, /error: the run ended before it finished/);
  });

  it('a run that settles exits with its code, after work it still had pending', async () => {
    const run = await runGuarded('exitWhenSettled(new Promise((resolve) => setTimeout(() => resolve(2), 50)), process.stderr);');
    assert.equal(run.code, 2, run.stderr);
    assert.equal(run.stderr, '');
    const ok = await runGuarded('exitWhenSettled(Promise.resolve(0), process.stderr);');
    assert.equal(ok.code, 0, ok.stderr);
  });

  it('a run that rejects exits 1 with its message', async () => {
    const run = await runGuarded("exitWhenSettled(Promise.reject(new Error('broken')), process.stderr);");
    assert.equal(run.code, 1);
    assert.match(run.stderr, /error: broken/);
  });
});
