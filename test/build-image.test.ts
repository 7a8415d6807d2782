/**
 * npm run image (scripts/build-image.sh) picks the engine that can build here: docker when its daemon answers, else
 * podman, else buildah; keeps the image under the package's name and version; and, with none, says what each one
 * lacks. The engines here are stand-ins on the PATH that record how they were called: the real build with podman is
 * `npm run test:image` (test/image/run.sh), which builds through this script.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFile, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import { promisify } from 'node:util';
import { REPO_ROOT } from './helpers/repo-root.js';
import { tempTree } from './helpers/temp-tree.js';

const SCRIPT = join(REPO_ROOT, 'scripts/build-image.sh');
const VERSION = (JSON.parse(await readFile(join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string }).version;

/** An engine stand-in: `working` answers its health command (`info`, or `version` for buildah) with 0, else 1. */
type Engines = Partial<Record<'docker' | 'podman' | 'buildah', { working: boolean }>>;

async function runScript(t: TestContext, engines: Engines, env: Record<string, string> = {}, args: string[] = []) {
  const bin = await tempTree(t, {}, 'engines-');
  const calls = join(bin, 'calls.log');
  for (const tool of ['sed', 'dirname', 'tail']) await symlink(join('/usr/bin', tool), join(bin, tool)).catch(() => symlink(join('/bin', tool), join(bin, tool)));
  for (const [engine, { working }] of Object.entries(engines)) {
    const health = engine === 'buildah' ? 'version' : 'info';
    await writeFile(join(bin, engine), `#!/bin/sh\nif [ "$1" = ${health} ]; then ${working ? 'exit 0' : 'echo "cannot connect" >&2; exit 1'}; fi\necho "${engine} $*" >> ${calls}\n`, { mode: 0o755 });
  }
  const result = await promisify(execFile)('/bin/bash', [SCRIPT, ...args], { env: { PATH: bin, ...env } }).then(
    (out) => ({ code: 0, stderr: out.stderr }),
    (error: { code: number; stderr: string }) => ({ code: error.code, stderr: error.stderr }),
  );
  const log = await readFile(calls, 'utf8').catch(() => '');
  return { ...result, calls: log.trim().split('\n').filter((line) => line !== '') };
}

describe('npm run image', () => {
  it('builds with docker when its daemon answers, keeping the image as policy-pool-sync:<version>', async (t) => {
    const { code, calls, stderr } = await runScript(t, { docker: { working: true }, podman: { working: true } });
    assert.equal(code, 0, stderr);
    assert.deepEqual(calls, [`docker build -t policy-pool-sync:${VERSION} ${REPO_ROOT}`]);
    assert.match(stderr, new RegExp(`built policy-pool-sync:${VERSION} with docker; run it with: docker run --rm -p 9090:9090 policy-pool-sync:${VERSION}`));
  });

  it("passes over a docker whose daemon does not answer, to podman, in docker's format (which keeps the HEALTHCHECK)", async (t) => {
    const { code, calls, stderr } = await runScript(t, { docker: { working: false }, podman: { working: true }, buildah: { working: true } }, { IMAGE: 'registry.example.com/pps:1' }, ['--pull=never']);
    assert.equal(code, 0, stderr);
    assert.deepEqual(calls, [`podman build --format docker -t registry.example.com/pps:1 --pull=never ${REPO_ROOT}`]);
  });

  it('builds with buildah when it is the only engine, and says to run the image with podman', async (t) => {
    const { code, calls, stderr } = await runScript(t, { buildah: { working: true } });
    assert.equal(code, 0, stderr);
    assert.deepEqual(calls, [`buildah build --format docker -t policy-pool-sync:${VERSION} ${REPO_ROOT}`]);
    assert.match(stderr, /run it with: podman run/);
  });

  it('says what each engine lacks when none can build, and what is wrong with the one ENGINE names', async (t) => {
    const none = await runScript(t, { docker: { working: false } });
    assert.notEqual(none.code, 0);
    assert.deepEqual(none.calls, []);
    assert.match(none.stderr, /no container engine can build here: docker is installed, but its daemon does not answer \(docker info fails\): start it; podman is not installed; buildah is not installed\. Install one of docker, podman or buildah\./);

    const chosen = await runScript(t, { docker: { working: false }, podman: { working: true } }, { ENGINE: 'docker' });
    assert.notEqual(chosen.code, 0);
    assert.deepEqual(chosen.calls, []);
    assert.match(chosen.stderr, /ENGINE=docker: docker is installed, but its daemon does not answer/);
  });
});
