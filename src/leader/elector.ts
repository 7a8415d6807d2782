import { NotLeaderError } from '../errors.js';
import type { Logger } from '../logger.js';
import type { LeaderRecord, LeaseStore, VersionedRecord } from './store.js';

export interface ElectorOptions {
  store: LeaseStore;
  /** This replica's name in the record (identity.ts). */
  identity: string;
  leaseDurationMs: number;
  /** Shorter than the lease (the config checks it). */
  renewDeadlineMs: number;
  retryPeriodMs: number;
  logger: Logger;
  /** A monotonic clock in ms: the only clock expiry is judged by. @default performance.now */
  now?: () => number;
}

/** What the rest of the daemon reads of an election. */
export interface Elector {
  readonly identity: string;
  /** Holds the lease now: elected, and its last renewal started less than renew-deadline ago. */
  readonly leading: boolean;
  /** The holder last seen in the record; null when nobody holds it, or before it was read. */
  readonly leader: string | null;
  /** Whether the last exchange with the store succeeded; null before the first. */
  readonly storeReached: boolean | null;
  /** Throws NotLeaderError unless `leading`: called before every request to the API goes out. */
  fence(): void;
  /**
   * `listener(true)` once this replica holds the lease; `listener(false)` synchronously the moment it stops holding
   * it (the renew deadline passed, or another holder was seen).
   */
  onLeadingChange(listener: (leading: boolean) => void): void;
  start(): void;
  /** Stops taking part; a leader then releases the lease, so that a standby takes over at once. */
  stop(): Promise<void>;
}

/**
 * client-go's leader election (tools/leaderelection/leaderelection.go), over a compare-and-swap store.
 *
 * - A candidate takes the lease only when it is free, or expired: the record has not changed for its lease
 *   duration, as measured on this machine's monotonic clock from when this replica first saw that version. Clocks of
 *   other machines are never compared.
 * - The leader renews every retry period. It leads only until renew-deadline after the start of its last successful
 *   renewal: that write reached the store no earlier, so a candidate saw it no earlier, and waits lease-duration
 *   (longer) from then. Past the deadline `leading` is false at once (the fence reads the clock, not a timer), and
 *   `onStoppedLeading` stops every source loop.
 * - `stop` releases the lease as client-go's ReleaseOnCancel does: no holder, a lease of 1 s.
 */
export function createElector(options: ElectorOptions): Elector {
  const { store, identity, logger } = options;
  const now = options.now ?? (() => performance.now());
  const log = logger.child({ lease: store.description });
  let observed: VersionedRecord | null = null;
  /** When `observed` was first seen (monotonic ms). */
  let observedAt = 0;
  let elected = false;
  let deadline = 0;
  let deadlineTimer: NodeJS.Timeout | null = null;
  let reportedLeader: string | null | undefined;
  let storeReached: boolean | null = null;
  let stopped = false;
  const halt = new AbortController();
  let loop: Promise<void> | null = null;
  const listeners: ((leading: boolean) => void)[] = [];

  const leading = () => elected && now() < deadline;

  function observe(current: VersionedRecord): void {
    if (observed === null || observed.version !== current.version) observedAt = now();
    observed = current;
    const holder = current.record.holderIdentity === '' ? null : current.record.holderIdentity;
    if (holder === reportedLeader) return;
    log.info({ leader: holder, previous: reportedLeader ?? null, self: identity }, holder === null ? 'leader changed: nobody holds the lease' : 'leader changed');
    reportedLeader = holder;
  }

  function renewed(startedAt: number, first: boolean): void {
    deadline = startedAt + options.renewDeadlineMs;
    if (deadlineTimer !== null) clearTimeout(deadlineTimer);
    deadlineTimer = setTimeout(() => lose('the renew deadline passed without a successful renewal'), Math.max(0, deadline - now()));
    if (!first) return;
    elected = true;
    log.info({ identity }, 'became leader');
    for (const listener of listeners) listener(true);
  }

  function lose(reason: string): void {
    if (deadlineTimer !== null) clearTimeout(deadlineTimer);
    deadlineTimer = null;
    if (!elected) return;
    elected = false;
    // When it stopped: the deadline, even when the process only notices later (it was stopped, or starved).
    const leadingUntil = new Date(Date.now() - Math.max(0, now() - deadline)).toISOString();
    log.warn({ identity, reason, leadingUntil, renewDeadlineSeconds: options.renewDeadlineMs / 1000 }, 'stopped leading');
    for (const listener of listeners) listener(false);
  }

  function mine(base: LeaderRecord | null, keepTerm: boolean): LeaderRecord {
    const wall = new Date().toISOString();
    return {
      holderIdentity: identity,
      leaseDurationMs: options.leaseDurationMs,
      acquireTime: keepTerm && base !== null ? base.acquireTime : wall,
      renewTime: wall,
      leaderTransitions: base === null ? 0 : keepTerm ? base.leaderTransitions : base.leaderTransitions + 1,
    };
  }

  /** One round: renew what we hold, or take the lease if it is free or expired. */
  async function tryAcquireOrRenew(signal: AbortSignal): Promise<void> {
    const startedAt = now();
    // 1. The leader's fast path: a write on the version it last saw.
    if (elected && observed !== null && observed.record.holderIdentity === identity) {
      const record = mine(observed.record, true);
      const result = await store.update(record, observed.version, signal);
      if (result !== 'conflict') {
        observe({ record, version: result.version });
        return renewed(startedAt, false);
      }
    }
    // 2. Read it, or create it.
    const current = await store.get(signal);
    if (current === null) {
      const record = mine(null, false);
      const result = await store.create(record, signal);
      if (result === 'conflict') return;
      observe({ record, version: result.version });
      return renewed(startedAt, !elected);
    }
    observe(current);
    const holder = current.record.holderIdentity;
    const expired = now() >= observedAt + current.record.leaseDurationMs;
    if (holder !== '' && holder !== identity && !expired) {
      if (elected) lose(`${holder} holds the lease`);
      return;
    }
    // 3. Ours to renew, free, or expired: a write on the version just read.
    const record = mine(current.record, holder === identity);
    const result = await store.update(record, current.version, signal);
    if (result === 'conflict') return;
    observe({ record, version: result.version });
    renewed(startedAt, !elected);
  }

  async function round(): Promise<void> {
    // A leader's exchange ends by its deadline; a candidate's within a renew deadline.
    const timeout = Math.max(1, Math.ceil(elected ? deadline - now() : options.renewDeadlineMs));
    try {
      await tryAcquireOrRenew(AbortSignal.any([halt.signal, AbortSignal.timeout(timeout)]));
      if (storeReached === false) log.info('the leader-election store answers again');
      storeReached = true;
    } catch (error) {
      if (halt.signal.aborted) return;
      if (storeReached !== false) log.warn({ error: error instanceof Error ? error.message : String(error), leading: elected }, 'cannot reach the leader-election store; trying again every retry period');
      storeReached = false;
    }
    // The timer may not have run yet (a process stopped and continued): the clock decides.
    if (elected && !leading()) lose('the renew deadline passed without a successful renewal');
  }

  async function run(): Promise<void> {
    while (!stopped) {
      const started = now();
      await round();
      const wait = Math.max(0, started + options.retryPeriodMs - now());
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, wait);
        halt.signal.addEventListener('abort', () => { clearTimeout(timer); resolve(); }, { once: true });
      });
    }
  }

  async function release(): Promise<void> {
    for (let attempt = 0; attempt < 3 && observed !== null && observed.record.holderIdentity === identity; attempt += 1) {
      const wall = new Date().toISOString();
      const record: LeaderRecord = { holderIdentity: '', leaseDurationMs: 1_000, acquireTime: wall, renewTime: wall, leaderTransitions: observed.record.leaderTransitions };
      const signal = AbortSignal.timeout(options.renewDeadlineMs);
      try {
        const result = await store.update(record, observed.version, signal);
        if (result !== 'conflict') {
          log.info({ identity }, 'lease released');
          return;
        }
        const current = await store.get(signal);
        if (current === null) return;
        observed = current;
      } catch (error) {
        log.warn({ error: error instanceof Error ? error.message : String(error) }, 'cannot release the lease; a standby takes over once it expires');
        return;
      }
    }
  }

  return {
    identity,
    get leading() {
      return leading();
    },
    get leader() {
      return observed === null || observed.record.holderIdentity === '' ? null : observed.record.holderIdentity;
    },
    get storeReached() {
      return storeReached;
    },
    fence() {
      if (leading()) return;
      if (elected) lose('the renew deadline passed without a successful renewal');
      throw new NotLeaderError(`not sent: this replica (${identity}) does not hold the lease`);
    },
    onLeadingChange(listener) {
      listeners.push(listener);
    },
    start() {
      log.info({ identity, leaseDurationSeconds: options.leaseDurationMs / 1000, renewDeadlineSeconds: options.renewDeadlineMs / 1000, retryPeriodSeconds: options.retryPeriodMs / 1000 }, 'leader election: trying to acquire the lease');
      loop ??= run();
    },
    async stop() {
      stopped = true;
      halt.abort(new Error('the daemon is shutting down'));
      await loop;
      const held = elected;
      if (deadlineTimer !== null) clearTimeout(deadlineTimer);
      deadlineTimer = null;
      elected = false;
      if (held) await release();
      await store.close();
    },
  };
}
