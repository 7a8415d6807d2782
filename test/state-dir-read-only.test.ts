/**
 * A state dir on a read-only file system (a container's read-only root with no volume mounted) is named as such, with
 * the volume to mount: Node's recursive mkdir reports ENOENT there, which says nothing of the cause. The read-only
 * file system is a real one: a tmpfs mounted read-only in a mount namespace of the run's own (`unshare -m`, as root).
 */
import assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { promisify } from 'node:util';
import { CLI } from './helpers/cli.js';
import { ORG } from './helpers/emulator.js';
import { useWorld } from './helpers/world.js';

const run = promisify(execFile);

/** Whether this machine lets the test mount a read-only tmpfs in a mount namespace of its own. */
function canMountReadOnly(): boolean {
  const probe = spawnSync('unshare', ['-m', 'sh', '-c', 'mount -t tmpfs -o ro tmpfs /mnt && ! touch /mnt/probe 2>/dev/null'], { stdio: 'ignore' });
  return probe.status === 0;
}

describe('a state dir on a read-only file system', () => {
  const fixture = useWorld();

  it('is named as a read-only file system, with the volume to mount, not as ENOENT', { skip: canMountReadOnly() ? false : 'needs unshare -m and mount (root)' }, async (t) => {
    const { world } = fixture;
    const dir = await fixture.repo({ 'policies/read-only.native': 'main = rule { true }\n' });
    // The policy exists and its code is compared: the dry run below downloads it, and so has a code cache to save.
    assert.equal((await world.cli('--reconcile', dir)).code, 0);
    const root = await mkdtemp(path.join(os.tmpdir(), 'pps-read-only-'));
    t.after(() => rm(root, { recursive: true, force: true }));
    const stateDir = path.join(root, 'state');
    const script = 'mount -t tmpfs -o ro tmpfs "$1" && shift && exec "$@"';
    const { stderr } = await run('unshare', ['-m', 'sh', '-c', script, 'sh', root, process.execPath, CLI,
      '--dry-run', '--source-dir', dir, '--organization', ORG, '--api-url', world.url, '--state-dir', stateDir], {
      env: { PATH: process.env['PATH'] ?? '', API_TOKEN: world.token, LOG_LEVEL: 'warn', LOG_FORMAT: 'json', NO_COLOR: '1' },
    });
    const warnings = stderr.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as { msg: string; error?: string });
    const cache = warnings.find((w) => w.msg.startsWith('could not write the code cache'));
    assert.ok(cache !== undefined, stderr);
    assert.match(cache.error ?? '', new RegExp(`^cannot write ${stateDir}/\\.code-cache(/[^ ]+)?: ${root} is on a read-only file system \\(EROFS\\)\\. Mount a writable volume at the state dir`));
    assert.match(cache.error ?? '', /or point STATE_DIR \(state-dir, --state-dir\) at a writable folder$/);
    assert.doesNotMatch(stderr, /ENOENT/);
  });
});
