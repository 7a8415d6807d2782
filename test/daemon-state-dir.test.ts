import { withoutSeal } from '../src/state-seal.js';
import assert from 'node:assert/strict';
import { mkdir, open, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import { newStateDir, recordingPass, startTestDaemon, testSource } from './helpers/daemon-harness.js';
import { runCli } from './helpers/cli.js';
import { gitRepo } from './helpers/git-repo.js';
import { smallRepo } from './helpers/repos.js';
import { tempTree } from './helpers/temp-tree.js';

const CONTROL = 'control-token-of-the-test';

/** A file of `bytes` that takes no room on the disk (sparse): what matters is that it is not read. */
async function hugeFile(file: string, bytes: number): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true });
  const handle = await open(file, 'w');
  await handle.truncate(bytes);
  await handle.close();
}


test('an unreadable record of suspended sources stops the start, naming the file; no source resumes', async (t) => {
  const cases: Array<[string, (stateDir: string) => Promise<string>, RegExp]> = [
    ['truncated', async (stateDir) => {
      const file = path.join(stateDir, 'suspensions', 'suspended.json');
      await mkdir(path.dirname(file), { recursive: true });
      await writeFile(file, '{"suspended":{"local":"2026-11-2');
      return file;
    }, /is not valid JSON/],
    ['truncated, in the old place', async (stateDir) => {
      const file = path.join(stateDir, 'suspended.json');
      await mkdir(stateDir, { recursive: true });
      await writeFile(file, '{"suspended":{"local":');
      return file;
    }, /is not valid JSON/],
    ['not what the daemon writes', async (stateDir) => {
      const file = path.join(stateDir, 'suspensions', 'suspended.json');
      await mkdir(path.dirname(file), { recursive: true });
      await writeFile(file, '["local"]');
      return file;
    }, /does not hold what the daemon writes there/],
    ['300 MB', async (stateDir) => {
      const file = path.join(stateDir, 'suspensions', 'suspended.json');
      await hugeFile(file, 300 * 1024 * 1024);
      return file;
    }, /is 314572800 bytes, more than the 1048576/],
  ];
  for (const [what, make, reason] of cases) {
    const stateDir = await newStateDir(t);
    const file = await make(stateDir);
    const { calls, pass } = recordingPass();
    await assert.rejects(startTestDaemon(t, { sources: [testSource('local', { path: await tempTree(t) })], pass, stateDir }), (error: Error) => {
      assert.equal(error.name, 'UsageError', what);
      assert.ok(error.message.includes(file), `${what}: ${error.message}`);
      assert.match(error.message, reason, what);
      assert.match(error.message, /cannot tell which sources were suspended: restore .* or delete it to resume every source/, what);
      return true;
    });
    assert.equal(calls.length, 0, `${what}: no pass ran`);
  }
});

test('a suspension whose record cannot be saved is an error answer, and the CLI exits non-zero', async (t) => {
  const stateDir = await newStateDir(t);
  const { pass } = recordingPass();
  const { daemon } = await startTestDaemon(t, { sources: [testSource('local', { path: await tempTree(t) })], pass, stateDir, env: { CONTROL_TOKEN: CONTROL } });
  await daemon.whenIdle();
  // A file where the record's folder should be: every save fails.
  await mkdir(stateDir, { recursive: true });
  await writeFile(path.join(stateDir, 'suspensions'), 'in the way');
  const answer = await fetch(`${daemon.origin}/sources/local/suspend`, { method: 'POST', headers: { authorization: `Bearer ${CONTROL}` } });
  assert.equal(answer.status, 500);
  const body = (await answer.json()) as { error: string; suspended: boolean };
  assert.match(body.error, /cannot save the suspended sources to .*suspensions.suspended\.json/);
  assert.equal(body.suspended, true, 'suspended until the daemon stops, as asked');
  const cli = await runCli(['resume', '--daemon', daemon.origin, '--source', 'local'], { env: { CONTROL_TOKEN: CONTROL } });
  assert.equal(cli.code, 1, cli.stdout);
  assert.match(cli.stderr, /500: cannot save the suspended sources/);
  assert.doesNotMatch(cli.stdout, /resumed/);
  assert.equal(daemon.statuses()[0]?.suspended, true, 'a resumption that was not saved does not resume');
});

test('a suspension in the old place is moved to its folder and kept; state files are group-writable whatever the umask', async (t) => {
  const umask = process.umask(0o022);
  t.after(() => process.umask(umask));
  const stateDir = await newStateDir(t);
  await mkdir(stateDir, { recursive: true });
  await writeFile(path.join(stateDir, 'suspended.json'), '{"suspended":{"local":"2026-11-20T10:00:00.000Z"}}\n');
  const { calls, pass } = recordingPass();
  const { daemon } = await startTestDaemon(t, {
    sources: [testSource('local', { path: await tempTree(t) }), testSource('other', { path: await tempTree(t) })], pass, stateDir, env: { CONTROL_TOKEN: CONTROL },
  });
  await daemon.whenIdle();
  assert.deepEqual(calls.map((c) => c.source.name), ['other'], 'the suspended source took no start-up pass');
  assert.equal(daemon.statuses()[0]?.suspendedAt, '2026-11-20T10:00:00.000Z');
  assert.deepEqual(await readdir(stateDir).then((names) => names.sort()), ['history', 'suspensions']);
  const answer = await fetch(`${daemon.origin}/sources/other/suspend`, { method: 'POST', headers: { authorization: `Bearer ${CONTROL}` } });
  assert.equal(answer.status, 200);
  const record = path.join(stateDir, 'suspensions', 'suspended.json');
  assert.deepEqual(Object.keys((JSON.parse(withoutSeal(await readFile(record, 'utf8'))) as { suspended: object }).suspended), ['local', 'other']);
  assert.equal((await stat(record)).mode & 0o777, 0o664);
  assert.equal((await stat(path.dirname(record))).mode & 0o777, 0o775);
  assert.equal((await stat(path.join(stateDir, 'history', 'other.json'))).mode & 0o777, 0o664);
  assert.equal((await stat(path.join(stateDir, 'history'))).mode & 0o777, 0o775);
});

test('a huge history file is not read: a warning names it and the history starts afresh', async (t) => {
  const stateDir = await newStateDir(t);
  const file = path.join(stateDir, 'history', 'local.json');
  await hugeFile(file, 300 * 1024 * 1024);
  const { pass } = recordingPass();
  const { daemon, logs } = await startTestDaemon(t, { sources: [testSource('local', { path: await tempTree(t) })], pass, stateDir });
  await daemon.whenIdle();
  const warning = logs.lines.map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => l.msg === 'the pass history file is ignored; the history starts afresh');
  assert.ok(warning !== undefined, 'warned');
  assert.equal(warning['file'], file);
  assert.match(String(warning['error']), /is 314572800 bytes, more than the 16777216 a state file of this kind can hold; it is not read/);
  assert.equal(daemon.statuses({ history: true })[0]?.history?.length, 1, 'the start-up pass only');
});

test('a git source named "history" has its checkout in the git folder; other sources\' history is kept', async (t) => {
  const repo = await gitRepo(t);
  await repo.commit(smallRepo());
  const stateDir = await newStateDir(t);
  const { pass } = recordingPass();
  const local = await tempTree(t, smallRepo());
  const { daemon } = await startTestDaemon(t, {
    sources: [testSource('other', { path: local }), testSource('history', { git: { url: repo.dir, ref: 'main', path: '.' } })], pass, stateDir,
  });
  await daemon.whenIdle();
  daemon.trigger('history', 'schedule');
  await daemon.whenIdle();
  assert.deepEqual((await readdir(path.join(stateDir, 'history'))).sort(), ['history.json', 'other.json']);
  assert.ok((await stat(path.join(stateDir, 'git', 'history', '.git'))).isDirectory());
  assert.equal(daemon.statuses({ history: true }).find((s) => s.name === 'history')?.history?.length, 2);
});
