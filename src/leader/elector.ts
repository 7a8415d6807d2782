import { setTimeout as delay } from 'node:timers/promises';
import { errorMessage, NotLeaderError } from '../errors.js';
import type { Logger } from '../logger.js';
import { LEASE_DURATION_BOUNDS, type LeaderRecord, type LeaseStore, type VersionedRecord } from './store.js';

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
  /**
   * Waits `ms` between rounds, or until `signal` aborts (then resolves); it must leave no listener on `signal`.
   * @default timers/promises' setTimeout with the signal
   */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  /** What this replica syncs (`syncFingerprint`), written in the record: a holder with another one is a foreign deployment's. */
  fingerprint?: string;
  /** Where this replica takes webhook deliveries handed over by a standby, written in the record while it leads. @default none (`advertise`) */
  address?: string;
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
  /** Where the holder takes handed-over webhook deliveries (its record's address); null when it gave none, or nobody holds it. */
  readonly leaderAddress: string | null;
  /**
   * Why this replica does not take part, or null: the record is a foreign holder's (another fingerprint: a deployment
   * that syncs other sources or organizations under the same lease name, or a lease duration outside the bounds).
   */
  readonly standingAside: string | null;
  /** Throws NotLeaderError unless `leading`: called before every request to the API goes out. */
  fence(): void;
  /**
   * `listener(true)` once this replica holds the lease; `listener(false)` synchronously the moment it stops holding
   * it (the renew deadline passed, or another holder was seen).
   */
  onLeadingChange(listener: (leading: boolean) => void): void;
  /** Sets the address written in the record from the next write on (the daemon knows its port once it listens). */
  advertise(address: string | null): void;
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
 *   (longer) from then. Past the deadline `leading` is false at once (the fence reads the clock, not a timer), and the
 *   `onLeadingChange` listeners are told (the daemon aborts every pass).
 * - A record that disappears is not a free lease, and neither is a key never written: a replica creates the record
 *   only once every read for a full lease duration found the key absent (a failed read starts the wait again), so a
 *   holder it never saw (a record created and deleted between two of its reads) has stopped by then. A leader that
 *   finds its record gone stops at once.
 * - A record this replica created makes it leader only once a renewal on it succeeds, a retry period later: a record
 *   deleted right after its creation, before any other replica read it, never made a leader.
 * - A record whose holder has another fingerprint, or whose lease duration is out of bounds, is a foreign holder's:
 *   this replica says so once and stands aside (not ready), without writing, until that record expires (a duration
 *   out of bounds never does).
 * - `stop` releases the lease as client-go's ReleaseOnCancel does: no holder, a lease of 1 s.
 */
export function createElector(options: ElectorOptions): Elector {
  const { store, identity } = options;
  const e: Election = {
    options, now: options.now ?? (() => performance.now()), log: options.logger.child({ lease: store.description }),
    observed: null, observedAt: 0, elected: false, deadline: 0, deadlineTimer: null, reportedLeader: undefined, storeReached: null, listeners: [],
    aside: null, goneSaid: false, absentSince: null, address: options.address,
  };
  const sleep = options.sleep ?? ((ms: number, signal: AbortSignal) => delay(ms, undefined, { signal }).catch(() => undefined));
  let stopped = false;
  const halt = new AbortController();
  let loop: Promise<void> | null = null;

  async function run(): Promise<void> {
    while (!stopped) {
      const started = e.now();
      await round(e, halt.signal);
      // No listener is left on the process-long halt signal: a round leaves nothing behind.
      await sleep(Math.max(0, started + options.retryPeriodMs - e.now()), halt.signal);
    }
  }

  return {
    identity,
    get leading() {
      return isLeading(e);
    },
    get leader() {
      return e.observed === null || e.observed.record.holderIdentity === '' ? null : e.observed.record.holderIdentity;
    },
    get storeReached() {
      return e.storeReached;
    },
    get leaderAddress() {
      const record = e.observed?.record;
      return record === undefined || record.holderIdentity === '' || record.holderIdentity === identity ? null : (record.address ?? null);
    },
    get standingAside() {
      return e.aside;
    },
    fence() {
      if (isLeading(e)) return;
      if (e.elected) lose(e, 'the renew deadline passed without a successful renewal');
      throw new NotLeaderError(`not sent: this replica (${identity}) does not hold the lease`);
    },
    onLeadingChange(listener) {
      e.listeners.push(listener);
    },
    advertise(address) {
      e.address = address ?? undefined;
    },
    start() {
      e.log.info({ identity, leaseDurationSeconds: options.leaseDurationMs / 1000, renewDeadlineSeconds: options.renewDeadlineMs / 1000, retryPeriodSeconds: options.retryPeriodMs / 1000 }, 'leader election: trying to acquire the lease');
      loop ??= run();
    },
    async stop() {
      stopped = true;
      halt.abort(new Error('the daemon is shutting down'));
      await loop;
      const held = e.elected;
      if (e.deadlineTimer !== null) clearTimeout(e.deadlineTimer);
      e.deadlineTimer = null;
      e.elected = false;
      if (held) await release(e);
      await store.close();
    },
  };
}

/** One replica's view of the election: the record it last saw, and whether (and until when) it leads. */
interface Election {
  options: ElectorOptions;
  now: () => number;
  log: Logger;
  observed: VersionedRecord | null;
  /** When `observed` was first seen (monotonic ms). */
  observedAt: number;
  elected: boolean;
  deadline: number;
  deadlineTimer: NodeJS.Timeout | null;
  reportedLeader: string | null | undefined;
  storeReached: boolean | null;
  listeners: ((leading: boolean) => void)[];
  /** Why this replica stands aside (a foreign holder), or null; said once per reason. */
  aside: string | null;
  /** The disappearance of the record was said. */
  goneSaid: boolean;
  /** Since when every read found the key absent (monotonic ms, taken when the first such answer came); null otherwise. */
  absentSince: number | null;
  /** Written in the record: where this replica takes handed-over webhook deliveries. */
  address: string | undefined;
}

function isLeading(e: Election): boolean {
  return e.elected && e.now() < e.deadline;
}

function observe(e: Election, current: VersionedRecord): void {
  if (e.observed === null || e.observed.version !== current.version) e.observedAt = e.now();
  e.observed = current;
  const holder = current.record.holderIdentity === '' ? null : current.record.holderIdentity;
  if (holder === e.reportedLeader) return;
  e.log.info({ leader: holder, previous: e.reportedLeader ?? null, self: e.options.identity }, holder === null ? 'leader changed: nobody holds the lease' : 'leader changed');
  e.reportedLeader = holder;
  if (holder !== null && holder !== e.options.identity) e.log.info({ leader: holder, self: e.options.identity }, `standing by; the leader is ${holder}`);
}

function renewed(e: Election, startedAt: number, first: boolean): void {
  e.deadline = startedAt + e.options.renewDeadlineMs;
  if (e.deadlineTimer !== null) clearTimeout(e.deadlineTimer);
  e.deadlineTimer = setTimeout(() => lose(e, 'the renew deadline passed without a successful renewal'), Math.max(0, e.deadline - e.now()));
  if (!first) return;
  e.elected = true;
  e.log.info({ identity: e.options.identity }, 'became leader');
  for (const listener of e.listeners) listener(true);
}

function lose(e: Election, reason: string): void {
  if (e.deadlineTimer !== null) clearTimeout(e.deadlineTimer);
  e.deadlineTimer = null;
  if (!e.elected) return;
  e.elected = false;
  // When it stopped: the deadline, even when the process only notices later (it was stopped, or starved).
  const leadingUntil = new Date(Date.now() - Math.max(0, e.now() - e.deadline)).toISOString();
  e.log.warn({ identity: e.options.identity, reason, leadingUntil, renewDeadlineSeconds: e.options.renewDeadlineMs / 1000 }, 'stopped leading');
  for (const listener of e.listeners) listener(false);
}

function mine(e: Election, base: LeaderRecord | null, keepTerm: boolean): LeaderRecord {
  const wall = new Date().toISOString();
  return {
    holderIdentity: e.options.identity,
    leaseDurationMs: e.options.leaseDurationMs,
    acquireTime: keepTerm && base !== null ? base.acquireTime : wall,
    renewTime: wall,
    leaderTransitions: base === null ? 0 : keepTerm ? base.leaderTransitions : base.leaderTransitions + 1,
    ...(e.options.fingerprint === undefined ? {} : { fingerprint: e.options.fingerprint }),
    ...(e.address === undefined ? {} : { address: e.address }),
  };
}

/** Why a record is a foreign holder's, or null: held by another, with another fingerprint or a duration out of bounds. */
function foreignReason(e: Election, record: LeaderRecord): string | null {
  if (record.holderIdentity === '' || record.holderIdentity === e.options.identity) return null;
  const { minMs, maxMs } = LEASE_DURATION_BOUNDS;
  const duration = record.leaseDurationMs;
  if (!inBounds(duration)) {
    return `the record's lease duration (${String(duration)} ms) is outside ${minMs / 1000}s to ${maxMs / 60_000}m: it is not a record this daemon writes`;
  }
  const mine = e.options.fingerprint;
  if (mine !== undefined && record.fingerprint !== undefined && record.fingerprint !== mine) {
    return `its holder syncs other sources or organizations (fingerprint ${record.fingerprint}, this replica's ${mine}): another deployment uses the same lease name; give each deployment its own leader-election lease-name`;
  }
  return null;
}

function inBounds(durationMs: number): boolean {
  return Number.isFinite(durationMs) && durationMs >= LEASE_DURATION_BOUNDS.minMs && durationMs <= LEASE_DURATION_BOUNDS.maxMs;
}

/** Stands aside from a foreign holder's record (said once per reason), or takes part again. */
function standAside(e: Election, reason: string | null, holder: string): void {
  if (reason === e.aside) return;
  e.aside = reason;
  if (reason === null) e.log.info({ leader: holder }, 'the lease is no longer held by a live foreign holder; taking part again');
  else e.log.error({ leader: holder, reason, self: e.options.identity }, `standing aside: the lease is held by a foreign holder: ${reason}`);
}

/**
 * The key is absent. A leader stops at once. A record may be created only once every read for a full lease duration
 * (this replica's, or the last holder's if longer) found it absent: a holder that created it in between and lost it
 * again, unseen, has passed its renew deadline by then. True when a record may be created now.
 */
function mayCreate(e: Election): boolean {
  if (e.elected) lose(e, 'the lease record is gone from the store');
  const now = e.now();
  e.absentSince ??= now;
  const seen = e.observed?.record;
  const waitMs = Math.max(e.options.leaseDurationMs, seen === undefined ? 0 : Math.min(seen.leaseDurationMs, LEASE_DURATION_BOUNDS.maxMs));
  if (now >= e.absentSince + waitMs) return true;
  if (!e.goneSaid) {
    const line = { lastHolder: seen?.holderIdentity ?? null, waitSeconds: Math.ceil((e.absentSince + waitMs - now) / 1000) };
    if (seen === undefined) e.log.info(line, 'no lease record yet; waiting a lease duration before creating it');
    else e.log.warn(line, 'the lease record is gone; waiting out its lease duration before creating it');
  }
  e.goneSaid = true;
  return false;
}

/** One round: renew what we hold, or take the lease if it is free or expired. */
async function tryAcquireOrRenew(e: Election, signal: AbortSignal): Promise<void> {
  const { store, identity } = e.options;
  const startedAt = e.now();
  // 1. The leader's fast path: a write on the version it last saw.
  if (e.elected && e.observed !== null && e.observed.record.holderIdentity === identity) {
    const record = mine(e, e.observed.record, true);
    const result = await store.update(record, e.observed.version, signal);
    if (result !== 'conflict') {
      observe(e, { record, version: result.version });
      return renewed(e, startedAt, false);
    }
  }
  // 2. Read it, or create it.
  const current = await store.get(signal);
  if (current === null) {
    if (!mayCreate(e)) return;
    const record = mine(e, null, false);
    const result = await store.create(record, signal);
    if (result === 'conflict') return;
    // Not leading yet: the next round's renewal on this version confirms the record is still there.
    observe(e, { record, version: result.version });
    e.absentSince = null;
    return;
  }
  observe(e, current);
  e.goneSaid = false;
  e.absentSince = null;
  const holder = current.record.holderIdentity;
  const expired = e.now() >= e.observedAt + current.record.leaseDurationMs;
  // A foreign holder gone (its record unchanged for its own, bounded, duration) no longer keeps anyone out.
  standAside(e, expired && inBounds(current.record.leaseDurationMs) ? null : foreignReason(e, current.record), holder);
  if (e.aside !== null) {
    if (e.elected) lose(e, `a foreign holder, ${holder}, holds the lease`);
    return;
  }
  if (holder !== '' && holder !== identity && !expired) {
    if (e.elected) lose(e, `${holder} holds the lease`);
    return;
  }
  // 3. Ours to renew, free, or expired: a write on the version just read.
  const record = mine(e, current.record, holder === identity);
  const result = await store.update(record, current.version, signal);
  if (result === 'conflict') return;
  observe(e, { record, version: result.version });
  renewed(e, startedAt, !e.elected);
}

/** One round under its time limit, and what it says of the store and of the lease. */
async function round(e: Election, halt: AbortSignal): Promise<void> {
  // A leader's exchange ends by its deadline; a candidate's within a renew deadline.
  const timeout = Math.max(1, Math.ceil(e.elected ? e.deadline - e.now() : e.options.renewDeadlineMs));
  // A timer of its own, cleared when the round ends: nothing of a round outlives it.
  const limit = new AbortController();
  const timer = setTimeout(() => limit.abort(new Error(`the store did not answer within ${timeout} ms`)), timeout);
  try {
    await tryAcquireOrRenew(e, AbortSignal.any([halt, limit.signal]));
    if (e.storeReached === false) e.log.info('the leader-election store answers again');
    e.storeReached = true;
  } catch (error) {
    if (halt.aborted) return;
    // What the key held meanwhile is unknown: an absence is counted again from the next answer.
    e.absentSince = null;
    if (e.storeReached !== false) e.log.warn({ error: errorMessage(error), leading: e.elected }, 'cannot reach the leader-election store; trying again every retry period');
    e.storeReached = false;
  } finally {
    clearTimeout(timer);
  }
  // The timer may not have run yet (a process stopped and continued): the clock decides.
  if (e.elected && !isLeading(e)) lose(e, 'the renew deadline passed without a successful renewal');
}

/** client-go's ReleaseOnCancel: no holder, a lease of 1 s, written on the version last seen (read again on a conflict). */
async function release(e: Election): Promise<void> {
  const { store, identity } = e.options;
  for (let attempt = 0; attempt < 3 && e.observed !== null && e.observed.record.holderIdentity === identity; attempt += 1) {
    const wall = new Date().toISOString();
    const record: LeaderRecord = { holderIdentity: '', leaseDurationMs: 1_000, acquireTime: wall, renewTime: wall, leaderTransitions: e.observed.record.leaderTransitions };
    const signal = AbortSignal.timeout(e.options.renewDeadlineMs);
    try {
      const result = await store.update(record, e.observed.version, signal);
      if (result !== 'conflict') {
        e.log.info({ identity }, 'lease released');
        return;
      }
      const current = await store.get(signal);
      if (current === null) return;
      e.observed = current;
    } catch (error) {
      e.log.warn({ error: errorMessage(error) }, 'cannot release the lease; a standby takes over once it expires');
      return;
    }
  }
}
