/**
 * A local source's folder watch: one fs.watch per folder and none per file, changes seen in folders made after it
 * started, nothing left open once closed, and the system's limit of watches (ENOSPC, simulated where fs.watch is
 * called: the real limit is the host's) a clear error that names `fs.inotify.max_user_watches` and the fix.
 */
import assert from 'node:assert/strict';
import { watch, type FSWatcher, type WatchListener } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { WatchLimitError, type StartFolderWatch } from '../src/source/folder-watcher.js';
import { localSource } from '../src/source/local.js';
import { tempTree } from './helpers/temp-tree.js';

/** Where the sources' state dir would be: outside their folders (the watch never writes it). */
const STATE_DIR = path.join(tmpdir(), 'pps-watch-state');

const fsWatches = (): number => process.getActiveResourcesInfo().filter((name) => name === 'FSEventWrap').length;

/** The fs.watch handles open once those being closed have closed: a handle's close ends on a later turn of the loop. */
async function settledFsWatches(): Promise<number> {
  for (let turn = 0; turn < 10; turn++) await new Promise((next) => setImmediate(next));
  return fsWatches();
}

const TREE = {
  'policies/a.native': 'main = rule { true }\n',
  'policies/a.yaml': 'enforcement-level: advisory\n',
  'policies/cost/b.native': 'main = rule { true }\n',
  'policies/cost/c.native': 'main = rule { true }\n',
  'agent-pools/build.yaml': 'organization-scoped: true\n',
  '.git/HEAD': 'ref: refs/heads/main\n',
  'README.md': 'docs\n',
};

/** fs.watch until `allowed` watches are open, then the error Node throws when inotify has no watch left. */
function limitedTo(allowed: number): { startWatch: StartFolderWatch; started: string[] } {
  const started: string[] = [];
  const startWatch = (folder: string, listener: WatchListener<string>): FSWatcher => {
    if (started.length >= allowed) {
      throw Object.assign(new Error(`ENOSPC: System limit for number of file watchers reached, watch '${folder}'`), { code: 'ENOSPC', errno: -28, syscall: 'watch' });
    }
    started.push(folder);
    return watch(folder, { persistent: true }, listener);
  };
  return { startWatch, started };
}

describe('a local source\'s folder watch', () => {
  it('holds one fs.watch per folder and none per file, sees a folder made after it started, and leaves nothing open once closed', async (t) => {
    const root = await tempTree(t, TREE);
    const before = fsWatches();
    const bursts: string[][] = [];
    let burst: () => void = () => undefined;
    const source = localSource(root, STATE_DIR);
    const watching = await source.watch((changed) => {
      bursts.push([...changed]);
      burst();
    }, 20);
    assert.ok(watching !== null);
    // The root, policies, policies/cost and agent-pools: not .git, and no file.
    assert.equal(fsWatches() - before, 4);

    const seen = new Promise<void>((resolve) => (burst = resolve));
    await mkdir(path.join(root, 'policies', 'storage'));
    await writeFile(path.join(root, 'policies', 'storage', 'd.native'), 'main = rule { true }\n');
    await seen;
    const changed = bursts.flat();
    assert.ok(changed.includes('policies/storage/d.native'), changed.join(', '));
    const edited = new Promise<void>((resolve) => (burst = resolve));
    await writeFile(path.join(root, 'policies', 'storage', 'd.native'), 'main = rule { false }\n');
    await edited;
    assert.ok(bursts.at(-1)?.includes('policies/storage/d.native'), JSON.stringify(bursts));
    assert.equal(fsWatches() - before, 5, 'the new folder is watched');
    await watching.close();
    assert.equal(await settledFsWatches(), before);
  });

  it('past the system\'s limit of watches fails at start with an error naming fs.inotify.max_user_watches and the fix, and leaves nothing open', async (t) => {
    const root = await tempTree(t, TREE);
    const before = fsWatches();
    const { startWatch, started } = limitedTo(2);
    const failure = await localSource(root, STATE_DIR, { startWatch }).watch(() => undefined).then(() => null, (error: unknown) => error);
    assert.ok(failure instanceof WatchLimitError, String(failure));
    assert.match(failure.message, /^cannot watch .+: the system's limit of file watches is reached \(fs\.inotify\.max_user_watches = (\d+|its value),/);
    assert.match(failure.message, /sysctl -w fs\.inotify\.max_user_watches=524288/);
    assert.match(failure.message, /synced on its schedule/);
    assert.equal(started.length, 2);
    assert.equal(await settledFsWatches(), before, 'the watches it opened are closed');
  });

  it('a folder added past the limit ends the watch and says why: the source goes on with its schedule', async (t) => {
    const root = await tempTree(t, TREE);
    const before = fsWatches();
    const { startWatch } = limitedTo(4);
    let failedWith: (error: Error) => void = () => undefined;
    const failed = new Promise<Error>((resolve) => (failedWith = resolve));
    const watching = await localSource(root, STATE_DIR, { startWatch }).watch(() => undefined, 20, (error) => failedWith(error));
    t.after(() => watching?.close());
    await mkdir(path.join(root, 'policies', 'more'));
    const error = await failed;
    assert.ok(error instanceof WatchLimitError);
    assert.match(error.message, /fs\.inotify\.max_user_watches/);
    assert.equal(await settledFsWatches(), before, 'the watch closed');
  });
});
