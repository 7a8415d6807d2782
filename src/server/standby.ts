import type { IncomingHttpHeaders } from 'node:http';
import type { Elector } from '../leader/index.js';
import type { Readiness } from './status.js';
import type { Logger } from '../logger.js';
import { FORWARDED_HEADER, forwardDelivery } from './webhook-forward.js';
import type { WebhookResponse } from './webhook.js';

/** What `/status` says of leader election (absent without it). */
export interface LeadershipStatus {
  /** This replica's name in the lease. */
  identity: string;
  /** Whether this replica holds the lease and syncs. */
  leading: boolean;
  /** Who holds the lease, as last read; null when nobody does. */
  leader: string | null;
  /** Whether the last exchange with the store succeeded; null before the first. */
  storeReached: boolean | null;
  /** Why this replica stands aside from the election (a foreign holder), or null. */
  standingAside?: string;
}

export function leadershipStatus(election: Elector | null): LeadershipStatus | null {
  if (election === null) return null;
  const aside = election.standingAside;
  return { identity: election.identity, leading: election.leading, leader: election.leader, storeReached: election.storeReached, ...(aside === null ? {} : { standingAside: aside }) };
}

/** A standby is ready while it can read the lease: it is ready to take over; one that stands aside from a foreign holder is not. */
export function standbyReadiness(election: Elector | null): Readiness {
  if (election?.standingAside != null) return { ready: false, reasons: [`standby: standing aside: ${election.standingAside}`] };
  if (election?.storeReached === true) return { ready: true, reasons: [] };
  return { ready: false, reasons: ['standby: the leader-election store has not answered'] };
}

export interface StandbyAnswer {
  status: 503;
  body: { error: string; leader: string | null };
}

/**
 * The one gate of a standby, asked by the control and webhook routes only after they authenticated the request (so
 * an unauthenticated client learns nothing of the election, and is throttled like any other): null while this
 * replica leads (or runs without election); else the 503 that names the leader, or, for a verified webhook
 * delivery, that delivery handed to the leader, answered with the leader's own status, or 502 when the leader could
 * not be given it (so the sender shows the failure and can deliver it again).
 */
export interface StandbyGate {
  /** The answer to an authenticated control request, or null to go on. */
  control(): StandbyAnswer | null;
  /** A verified delivery: handed to the leader's address when the record gives one; null to go on. */
  webhook(headers: IncomingHttpHeaders, rawBody: Buffer, secret: string): Promise<WebhookResponse> | null;
}

export interface StandbyOptions {
  /** `leader-election.forward-to-loopback`: a leader's address on loopback is one to hand deliveries to. @default false */
  forwardToLoopback?: boolean;
}

export function standbyGate(election: Elector | null, logger: Logger, options: StandbyOptions = {}): StandbyGate {
  const answer = (): StandbyAnswer | null => (election === null || election.leading ? null : standbyAnswer(election));
  return {
    control: answer,
    webhook(headers, rawBody, secret) {
      const refused = answer();
      if (refused === null || election === null) return null;
      const address = election.leaderAddress;
      // A delivery handed over once is not handed on: the leader changed meanwhile, and the sender may redeliver.
      if (address === null || headers[FORWARDED_HEADER] !== undefined) {
        logger.warn({ leader: election.leader, handedOverBefore: headers[FORWARDED_HEADER] !== undefined }, 'webhook delivery refused: this replica stands by and has no leader address to hand it to');
        return Promise.resolve(refused);
      }
      const leader = election.leader;
      const delivery = { address, headers, rawBody, secret, from: election.identity, leader, allowLoopback: options.forwardToLoopback === true };
      return forwardDelivery(delivery).then((forwarded): WebhookResponse => {
        if ('answered' in forwarded) {
          logger.info({ leader, address, status: forwarded.answered.status }, 'webhook delivery handed to the leader');
          return forwarded.answered;
        }
        logger.warn({ leader, address, reason: forwarded.failed }, 'webhook delivery not handed to the leader: answered 502, so that the sender can deliver it again');
        return { status: 502, body: { error: `this replica stands by and could not hand the delivery to the leader${leader === null ? '' : `, ${leader}`}: ${forwarded.failed}`, leader } };
      });
    },
  };
}

/** The answer of a standby to a webhook or a control command: 503, naming the leader. */
export function standbyAnswer(election: Elector | null): StandbyAnswer {
  const leader = election?.leader ?? null;
  const who = leader === null ? 'no replica holds the lease right now; try again shortly' : `send it to the leader, ${leader}`;
  return { status: 503, body: { error: `this replica stands by and does not sync: ${who}`, leader } };
}
