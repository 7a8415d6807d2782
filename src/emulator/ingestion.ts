/**
 * A policy set version's ingestion runs on its own: once its archive is uploaded it reads `ingressing`, and
 * `Behaviour.ingestionMs` later on the emulator's clock it is `ready` or `errored`, whether anyone read it or not; a
 * ready one then becomes its set's `current-version` unless a newer one is (go-tfe `TestPolicySetsRead` "with policy
 * set version": the set names the version as current though nobody read the version). Every API request and the
 * control state settle the versions whose time has come first, so what is answered is the state at the clock's time.
 */
import type { VersionRecord } from './records.js';
import { findPolicySet, type Store } from './store.js';

/** Settles every uploaded version whose ingestion has ended by `now`, oldest upload first. */
export function settleDue(store: Store, now: number): void {
  const due = [...store.ingesting].map((id) => store.versions.get(id)).filter((version): version is VersionRecord =>
    version !== undefined && version.settlesAt !== null && version.settlesAt <= now);
  for (const version of due.sort((a, b) => (a.settlesAt ?? 0) - (b.settlesAt ?? 0))) settle(store, version);
  for (const id of store.ingesting) if (!store.versions.has(id)) store.ingesting.delete(id);
}

/** Ingestion's outcome becomes the version's, stamped at the time it ended. */
function settle(store: Store, version: VersionRecord): void {
  store.ingesting.delete(version.id);
  const outcome = version.outcome;
  if (outcome === null || version.settlesAt === null) return;
  const at = new Date(version.settlesAt).toISOString();
  version.status = outcome.status;
  version.errorMessage = outcome.errorMessage;
  version.policyCount = outcome.policyCount;
  version.policies = outcome.policies;
  version.statusTimestamps[`${outcome.status}-at`] = at;
  version.updatedAt = at;
  const set = findPolicySet(store, version.setId);
  if (set === undefined || outcome.status !== 'ready') return;
  const current = set.currentVersionId === null ? -1 : set.versionIds.indexOf(set.currentVersionId);
  if (set.versionIds.indexOf(version.id) > current) set.currentVersionId = version.id;
  set.updatedAt = at;
}
