import { setMaxListeners } from 'node:events';
import type { Logger } from './logger.js';

/** Resolves on the first SIGTERM or SIGINT; a second one while shutting down exits at once with 1. */
export function waitForShutdownSignal(logger: Logger): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const onSignal = (signal: NodeJS.Signals) => {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      logger.info({ signal }, 'signal received; shutting down (send it again to exit at once)');
      process.once('SIGINT', () => process.exit(1));
      process.once('SIGTERM', () => process.exit(1));
      resolve(signal);
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  });
}

export type StopSignal = 'SIGINT' | 'SIGTERM';

/** The exit status of a run stopped by a signal, as shells report it: 128 + the signal's number. */
export const SIGNAL_EXIT_CODE: Readonly<Record<StopSignal, number>> = { SIGINT: 130, SIGTERM: 143 };

/**
 * Calls `onFirst` on the first SIGINT or SIGTERM; a second one exits at once with its status. Returns the function
 * that removes the handlers.
 */
export function onStopSignal(onFirst: (signal: StopSignal) => void): () => void {
  let received = false;
  const handler = (signal: StopSignal) => {
    if (received) process.exit(SIGNAL_EXIT_CODE[signal]);
    received = true;
    onFirst(signal);
  };
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
  return () => {
    process.off('SIGINT', handler);
    process.off('SIGTERM', handler);
  };
}

/**
 * A signal that every request of a pass listens to: each request queued or waiting for its turn adds one abort listener
 * and removes it when done, so hundreds at once are normal, not a leak, and Node's MaxListenersExceededWarning is off.
 */
export function sharedSignal<T extends AbortSignal>(signal: T): T {
  setMaxListeners(0, signal);
  return signal;
}
