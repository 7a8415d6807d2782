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
