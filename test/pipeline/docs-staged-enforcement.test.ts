/**
 * The "Try it locally" session of docs/staged-enforcement.md, pasted as it is into bash in an empty folder with
 * `policy-pool-sync` on the PATH (the bundle, as an install puts it): it runs, and prints every line the paragraph
 * after it quotes.
 */
import assert from 'node:assert/strict';
import { chmod, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { bash } from '../helpers/action-runner.js';
import { REPO_ROOT } from '../helpers/repo-root.js';
import { useTempTrees } from '../helpers/temp-tree.js';

const dirOf = useTempTrees('pps-doc-session-');

describe('docs/staged-enforcement.md: Try it locally', () => {
  it('runs as written: a raise that would block, a rollout held, then promoted, then no changes', async () => {
    const doc = await readFile(join(REPO_ROOT, 'docs/staged-enforcement.md'), 'utf8');
    const section = doc.slice(doc.indexOf('## Try it locally\n'));
    const match = /```sh\n([\s\S]*?)```\n\n([\s\S]*?)\n\n/.exec(section);
    assert.ok(match, 'the section holds a sh block and a paragraph after it');
    const bin = await dirOf({});
    await writeFile(join(bin, 'policy-pool-sync'), `#!/bin/sh\nexec "${process.execPath}" "${join(REPO_ROOT, 'bundle/policy-pool-sync.mjs')}" "$@"\n`);
    await chmod(join(bin, 'policy-pool-sync'), 0o755);
    const dir = await dirOf({});
    const script = join(bin, 'session.sh');
    // Only a safety net, so that a failed line leaves no emulator behind; the lines themselves run as written.
    await writeFile(script, `trap 'kill $(jobs -p) 2>/dev/null || true' EXIT\n${match[1]!}`);
    const run = await bash(script, dir, { PATH: `${bin}:${process.env['PATH'] ?? ''}`, HOME: dir, NO_COLOR: '1', LOG_LEVEL: 'warn' });
    assert.equal(run.code, 0, `${run.stdout}\n${run.stderr}`);
    const quoted = [...match[2]!.matchAll(/`([^`]+)`/g)].map((m) => m[1]!.replace(/\s*\n\s*/g, ' '));
    assert.ok(quoted.length >= 5, quoted.join('\n'));
    // Each where the paragraph says it: after the one before.
    let at = 0;
    for (const line of quoted) {
      const found = run.stdout.indexOf(line, at);
      assert.ok(found >= 0, `the session does not print "${line}" after "${run.stdout.slice(Math.max(0, at - 80), at)}":\n${run.stdout}`);
      at = found + line.length;
    }
  });
});
