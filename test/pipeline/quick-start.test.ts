/** The README's quick start, pasted as it is into bash in a fresh clone (no npm install, no build): it works as written. */
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { REPO_ROOT } from '../helpers/repo-root.js';

const run = promisify(execFile);
let temp: string | undefined;
after(() => (temp === undefined ? undefined : rm(temp, { recursive: true, force: true })));

describe("the README's quick start", () => {
  it('runs line by line in a fresh clone: validate, plan, apply, then in sync', async () => {
    const readme = await readFile(join(REPO_ROOT, 'README.md'), 'utf8');
    const section = readme.slice(readme.indexOf('## Quick start\n'));
    const block = /```sh\n([\s\S]*?)```/.exec(section);
    assert.ok(block, 'the quick start holds a sh block');
    temp = await mkdtemp(join(tmpdir(), 'pps-quick-start-'));
    const clone = join(temp, 'policy-pool-sync');
    await run('git', ['clone', '--quiet', REPO_ROOT, clone]);
    // Only a safety net, so that a failed line leaves no emulator behind; the lines themselves run as written.
    const script = `trap 'kill $(jobs -p) 2>/dev/null || true' EXIT\n${block[1]}`;
    const result = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
      const child = spawn('bash', ['--noprofile', '--norc', '-eo', 'pipefail', '-c', script], {
        cwd: clone,
        env: { PATH: process.env['PATH'] ?? '', HOME: temp!, NO_COLOR: '1' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
      child.on('error', reject);
      child.on('close', (code) => resolve({ code, stdout, stderr }));
    });
    assert.equal(result.code, 0, `${result.stdout}\n${result.stderr}`);
    assert.match(result.stdout, /^default: valid \(\d+ policies, 1 agent pool\)$/m);
    assert.match(result.stdout, /Plan: \d+ to create, 0 to update, 0 to replace, 0 to delete\./);
    assert.match(result.stdout, /Apply complete! Resources: \d+ created/);
    assert.match(result.stdout, /"name":"require-mandatory-tags"|require-mandatory-tags/);
    const { stdout: status } = await run('git', ['status', '--porcelain', '--untracked-files=all'], { cwd: clone });
    assert.equal(status, '', 'the quick start leaves no file behind in the clone');
  });
});
