import os from 'node:os';
import path from 'node:path';

const FOLDER = 'policy-pool-sync';

/**
 * The state dir of a run without a config file (`--source-dir`), when neither `--state-dir` nor `STATE_DIR` says
 * where: outside the declared repo, so that the tool's own files never change what it reports about it. Under GitHub
 * Actions the runner's temporary folder (`$RUNNER_TEMP`, emptied after each job: keep it with `actions/cache`);
 * elsewhere the platform's cache folder: `$XDG_CACHE_HOME` or `~/.cache` on Linux, `~/Library/Caches` on macOS,
 * `%LOCALAPPDATA%` on Windows, as `go env GOCACHE` and pip choose theirs.
 */
export function defaultStateDir(env: NodeJS.ProcessEnv, platform: NodeJS.Platform = process.platform): string {
  const set = (name: string) => {
    const value = env[name];
    return value !== undefined && value !== '' && path.isAbsolute(value) ? value : null;
  };
  const home = set('HOME') ?? os.homedir();
  const runnerTemp = env['GITHUB_ACTIONS'] === 'true' ? set('RUNNER_TEMP') : null;
  if (runnerTemp !== null) return path.join(runnerTemp, FOLDER);
  if (platform === 'win32') return path.join(set('LOCALAPPDATA') ?? path.join(home, 'AppData', 'Local'), FOLDER, 'Cache');
  if (platform === 'darwin') return path.join(home, 'Library', 'Caches', FOLDER);
  return path.join(set('XDG_CACHE_HOME') ?? path.join(home, '.cache'), FOLDER);
}
