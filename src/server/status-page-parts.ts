import { html, type SafeHtml } from './html.js';
import type { PassRecord } from '../operations/pass-record.js';
import type { LeadershipStatus } from './standby.js';
import type { SourceStatus } from './status.js';
import { count } from '../plural.js';
import { rolloutLine } from '../output/evidence-words.js';

/** Names listed per pass in "Recent passes"; the rest are counted. */
const NAMES_PER_PASS = 8;
const SIGNS = { create: '+', update: '~', replace: '-/+', delete: '-' } as const;

/** The changes of the last plan; after a pass that made no plan, no figure (the one before it is stale). */
export function driftFact(status: SourceStatus): SafeHtml | string {
  if (status.lastPass !== null && status.lastPass.drift === null) return 'unknown: the last pass made no plan';
  if (status.driftCount === null) return 'unknown';
  const waiting = status.waitingForWindow === null ? '' : html` · <b>${status.waitingForWindow}</b> waiting for the sync window`;
  return html`<b>${count(status.driftCount, 'change')}</b> in the last plan${waiting}`;
}

/** Under leader election: whether this replica leads and syncs, or stands by, and who leads. */
export function leadershipBanner(leadership: LeadershipStatus | null): SafeHtml | '' {
  if (leadership === null) return '';
  const { identity, leading, leader, storeReached } = leadership;
  const store = storeReached === false ? html` <span class="badge bad">store unreachable</span> Its last exchange with the leader-election store failed.`
    : storeReached === null ? html` <span class="quiet">The leader-election store has not answered yet.</span>` : '';
  if (leading) return html`<p class="leadership"><span class="badge ok">leader</span> This replica, <b>${identity}</b>, holds the lease and syncs.${store}</p>`;
  const who = leader === null ? html`no replica holds the lease right now` : html`the leader is <b>${leader}</b>`;
  return html`<p class="leadership"><span class="badge idle">standby</span> This replica, <b>${identity}</b>, stands by and does not sync: ${who}. The passes below are those it ran while it led, if any.${store}</p>`;
}

/** Suspension and the sync window, when they apply. */
export function stateFacts(status: SourceStatus): SafeHtml[] {
  const facts: SafeHtml[] = [];
  if (status.suspended) facts.push(html`<div><dt>Suspended</dt><dd><span class="badge warn">suspended</span> since ${status.suspendedAt ?? ''}</dd></div>`);
  if (status.syncWindow !== null) {
    const { closed, reason } = status.syncWindow;
    facts.push(html`<div><dt>Sync window</dt><dd><span class="badge ${closed ? 'warn' : 'ok'}">${closed ? 'closed' : 'open'}</span> ${reason ?? ''}</dd></div>`);
  }
  return facts;
}

/** A warning per pool that has workspaces but no agent able to run anything. */
export function poolWarnings(status: SourceStatus): SafeHtml | '' {
  const stuck = (status.pools ?? []).filter((p) => p.warning !== null);
  if (stuck.length === 0) return '';
  return html`<div class="error"><b>Agent pools</b><ul>${stuck.map((p) => html`<li>${p.warning}</li>`)}</ul></div>`;
}

/** `~ require-tags, + limit-size, … 3 more`: which resources a pass changed, by name. */
export function changedNames(pass: PassRecord): string {
  const changed = pass.changes.filter((c) => c.outcome === 'applied' || c.outcome === 'failed');
  const listed = changed.slice(0, NAMES_PER_PASS).map((c) => `${SIGNS[c.action]} ${c.name}${c.outcome === 'failed' ? ' (failed)' : ''}`);
  const more = changed.length - listed.length + pass.changesOmitted;
  return `${listed.join(', ')}${more > 0 ? `, … ${more} more` : ''}` || '–';
}

/** Rollouts under way as the last pass that planned left them: each held policy with its progress, or its promotion. */
export function rolloutList(status: SourceStatus): SafeHtml | '' {
  const rollouts = status.rollouts ?? [];
  if (rollouts.length === 0) return '';
  const tone = (state: string) => (state === 'promoted' ? 'ok' : 'warn');
  return html`<h3>Rollouts (${rollouts.length})</h3><ul class="rollouts">${rollouts.map((r) => html`<li><span class="badge ${tone(r.state)}">${r.state}</span> ${rolloutLine(r)}</li>`)}</ul>`;
}
