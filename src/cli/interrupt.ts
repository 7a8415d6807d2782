import { Interrupted } from '../errors.js';
import type { Logger } from '../logger.js';
import type { PassPhase } from '../progress.js';
import { onStopSignal, SIGNAL_EXIT_CODE, type StopSignal } from '../signals.js';

const WHILE: Record<PassPhase | 'starting', string> = {
  starting: 'reading the declared repo',
  reading: 'reading the declared repo and the live state',
  downloading: 'checking live code',
  applying: 'applying',
};

export interface Interruption {
  /** No change starts any more. */
  readonly stop: AbortSignal;
  /** The passes end: requests and the walk abort. */
  readonly abort: AbortSignal;
  readonly received: StopSignal | null;
  /** Set when the signal came before the first write: the run ends at once and says so in one line. */
  readonly early: Interrupted | null;
  /** Where the run stands; once a pass is applying, a signal lets the changes under way finish. */
  phase(phase: PassPhase): void;
  remove(): void;
}

/**
 * Before the first write, the first SIGINT or SIGTERM aborts everything at once (nothing was changed, so nothing is
 * worth waiting for). Once applying, it stops new changes (`stop`) and gives those under way `graceSeconds` to finish
 * before they are abandoned (`abort`). A second signal exits at once.
 */
export function interruption(graceSeconds: number, logger: Logger): Interruption {
  const stop = new AbortController();
  const abort = new AbortController();
  let phase: PassPhase | 'starting' = 'starting';
  let wrote = false;
  const state = {
    stop: stop.signal,
    abort: abort.signal,
    received: null as StopSignal | null,
    early: null as Interrupted | null,
    phase(next: PassPhase) {
      phase = next;
      if (next === 'applying') wrote = true;
    },
    remove: () => {},
  };
  state.remove = onStopSignal((signal) => {
    state.received = signal;
    if (!wrote) {
      state.early = new Interrupted(`interrupted while ${WHILE[phase]}; nothing was changed`, SIGNAL_EXIT_CODE[signal]);
      stop.abort(state.early);
      abort.abort(state.early);
      return;
    }
    logger.warn({ signal, graceSeconds }, 'signal received: no new changes; finishing those under way (send it again to exit at once)');
    stop.abort(new Error(`stopped by ${signal}`));
    setTimeout(() => abort.abort(new Error(`stopped by ${signal}; the changes under way were abandoned after ${graceSeconds} s`)), graceSeconds * 1000).unref();
  });
  return state;
}
