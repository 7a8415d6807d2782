import { errorMessage } from '../errors.js';

/**
 * The process exits with the command line's code only once the command line has finished. Node ends a process
 * whose event loop is empty even while a promise is still pending (a request lost inside a connection pool, a
 * wait nobody will resolve): without this guard such a run would end with exit code 0, having printed nothing and
 * done only part of its work.
 */
export function exitWhenSettled(run: Promise<number>, stderr: NodeJS.WritableStream): void {
  let settled = false;
  // Until the run settles, any way out of the process is a failure.
  process.exitCode = 1;
  const unfinished = (): void => {
    if (settled) return;
    stderr.write('error: the run ended before it finished: it was waiting for work that can no longer complete (such as a request that never settled); what was not reported above was not done\n');
    process.exit(1);
  };
  process.on('beforeExit', unfinished);
  run.then(
    (code) => {
      settled = true;
      process.off('beforeExit', unfinished);
      process.exitCode = code;
    },
    (error: unknown) => {
      settled = true;
      process.off('beforeExit', unfinished);
      stderr.write(`error: ${errorMessage(error)}\n`);
      process.exitCode = 1;
    },
  );
}
