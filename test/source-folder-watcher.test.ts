/**
 * A folder watch, closed while chokidar is starting the watch of a folder just added, leaves no `fs.watch` behind:
 * chokidar 5 drops the closer it makes in that gap (paulmillr/chokidar#1482), and the handle would hold the process
 * (a daemon told to stop would never exit).
 */
import assert from 'node:assert/strict';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { describe, it } from 'node:test';
import { watchFolderTree } from '../src/source/folder-watcher.js';
import { tempTree } from './helpers/temp-tree.js';

const fsWatches = (): number => process.getActiveResourcesInfo().filter((name) => name === 'FSEventWrap').length;

/** The fs.watch handles open once those being closed have closed: a handle's close ends on a later turn of the loop. */
async function settledFsWatches(): Promise<number> {
  for (let turn = 0; turn < 10; turn++) await new Promise((next) => setImmediate(next));
  return fsWatches();
}

type HandleDir = (...args: unknown[]) => Promise<unknown>;

describe('a folder watch', () => {
  it('closed in the gap where chokidar has started a new folder\'s fs.watch but not yet kept its closer, leaves no fs.watch open', async (t) => {
    const root = await tempTree(t, { 'policies/a.native': 'main = rule { true }\n' });
    const before = fsWatches();
    const folder = watchFolderTree(root, { ignoreInitial: true });
    await new Promise<void>((resolve, reject) => folder.watcher.once('ready', resolve).once('error', reject));
    assert.ok(fsWatches() > before, 'the watch holds fs.watch handles while open');

    // chokidar's close() lands right after _handleDir has made the new folder's watch and before _addToNodeFs keeps it.
    const handler = (folder.watcher as unknown as { _nodeFsHandler: { _handleDir: HandleDir } })._nodeFsHandler;
    const handleDir = handler._handleDir.bind(handler);
    const gap = new Promise<void>((reached) => {
      handler._handleDir = async (...args: unknown[]) => {
        const closer = await handleDir(...args);
        if (typeof closer === 'function' && String(args[0]).endsWith('added')) {
          void folder.watcher.close();
          reached();
        }
        return closer;
      };
    });
    await mkdir(path.join(root, 'policies', 'added'));
    await gap;

    await folder.close();
    assert.equal(await settledFsWatches(), before, 'an fs.watch of the closed watch is still open');
  });

  it('once closed, is not opened again by chokidar watching for a removed file\'s return (its add after close)', async (t) => {
    const root = await tempTree(t, { 'policies/a.native': 'main = rule { true }\n' });
    const before = fsWatches();
    const folder = watchFolderTree(root, { ignoreInitial: true });
    await new Promise<void>((resolve, reject) => folder.watcher.once('ready', resolve).once('error', reject));
    await folder.close();
    // What chokidar's _remove does for an unlink event still queued when the watch closed: watch the folder above for
    // the file's return. chokidar's add sets closed back to false and starts an fs.watch there.
    folder.watcher.add(path.join(root, 'policies'));
    try {
      assert.equal(folder.watcher.closed, true, 'chokidar opened the closed watch again');
      assert.equal(await settledFsWatches(), before, 'an fs.watch was opened after the watch closed');
    } finally {
      await folder.watcher.close();
    }
  });
});
