import { readFile } from 'node:fs/promises';
import { defaultSeed, parseSeed, startEmulator } from '../emulator/index.js';
import { UsageError } from '../errors.js';
import type { Logger } from '../logger.js';
import { waitForShutdownSignal } from '../signals.js';
import type { CliArgs } from './args.js';

/** `--emulator`: serve the API emulator until SIGINT or SIGTERM; print one JSON line with its URL and token. */
export async function runEmulator(args: CliArgs, stdout: NodeJS.WriteStream, logger: Logger): Promise<number> {
  const seed = args.emulatorSeed === null
    ? defaultSeed()
    : parseSeed(await readFile(args.emulatorSeed, 'utf8'), args.emulatorSeed);
  const emulator = await startEmulator({ port: args.port, seed, logger }).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'EADDRINUSE') throw new UsageError(`port ${args.port} is in use: pass another --port (0 picks a free one)`);
    throw error;
  });
  stdout.write(`${JSON.stringify({ url: emulator.url, token: emulator.token })}\n`);
  logger.warn({ url: emulator.url }, 'emulator serving; it keeps everything in memory and changes nothing real');
  await waitForShutdownSignal(logger);
  await emulator.close();
  return 0;
}
