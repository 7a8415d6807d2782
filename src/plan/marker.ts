/**
 * The ownership marker: an HTML comment appended to every policy description the daemon writes
 * under `ownership: marker`. Invisible in rendered Markdown, never shown as drift.
 *
 * Format: `<description>\n\n<!-- managed-by: policy-pool-sync source=<name> -->`, or the marker
 * alone when the declared description is null. `stripMarker(withMarker(d, s)) === d` for every d.
 */

import type { RolloutRecord } from '../model.js';

const PREFIX = '<!-- managed-by: policy-pool-sync source=';
const SUFFIX = ' -->';
const SEPARATOR = '\n\n';
const TRAILING_MARKER =
  /<!-- managed-by: policy-pool-sync source=(?<source>.+?)(?: content=sha256:(?<content>[0-9a-f]{64})(?: version=(?<version>polsetver-[A-Za-z0-9_-]{1,64}))?)?(?: sensitive=(?<sensitive>[0-9a-f]{64}))?(?: rollout=(?<rollout>[0-9a-f]{16})\.(?<started>[0-9]{1,15})\.(?<state>held|promoted)(?: levels=(?<levels>(?:[0-9a-f]{8}){1,4096}))?)? -->[ \t\r\n]*$/;

/**
 * What a policy set's marker records beside its source: the content it last saw ready (`content=sha256:<hex>`) and
 * the version this source uploaded it as, the one the service enforces (`version=polsetver-…`), and the keyed digest
 * of its sensitive parameters (`sensitive=<hex>`).
 */
export interface SetMarks {
  content?: { digest: string; version: string } | null;
  sensitive?: string | null;
  /**
   * A policy's rollout (`rollout=<digest>.<started ms>.<held|promoted>`), or a versioned set's, which adds the levels
   * its uploaded version gives its policies at a level that blocks (`levels=<hex>`, 8 digits a policy): where any
   * runner finds it.
   */
  rollout?: (RolloutRecord & { enforced?: string | null }) | null;
}

export function marker(source: string, set: SetMarks = {}): string {
  const content = set.content == null ? '' : ` content=sha256:${set.content.digest} version=${set.content.version}`;
  const sensitive = set.sensitive == null ? '' : ` sensitive=${set.sensitive}`;
  const levels = set.rollout?.enforced == null ? '' : ` levels=${set.rollout.enforced}`;
  const rollout = set.rollout == null ? '' : ` rollout=${set.rollout.digest}.${set.rollout.startedAt}.${set.rollout.state}${levels}`;
  return `${PREFIX}${source}${content}${sensitive}${rollout}${SUFFIX}`;
}

export function withMarker(description: string | null, source: string, set: SetMarks = {}): string {
  if (description === null) return marker(source, set);
  return `${description}${SEPARATOR}${marker(source, set)}`;
}

/** What the description's marker records of a policy set; each null when it records none. */
export function markerSet(description: string | null): { content: string | null; version: string | null; sensitive: string | null } {
  const groups = description === null ? undefined : TRAILING_MARKER.exec(description)?.groups;
  return { content: groups?.['content'] ?? null, version: groups?.['version'] ?? null, sensitive: groups?.['sensitive'] ?? null };
}

/**
 * A policy's rollout as its marker records it (a policy with a `rollout:` block: which rollout, when it began, held or
 * promoted), so that every runner, a CI job with no state dir included, finds it; null when it records none.
 */
export function markerRollout(description: string | null): RolloutRecord | null {
  const groups = description === null ? undefined : TRAILING_MARKER.exec(description)?.groups;
  if (groups?.['rollout'] === undefined) return null;
  return { digest: groups['rollout'], startedAt: Number(groups['started']), state: groups['state'] as RolloutRecord['state'] };
}

/** A versioned set's rollout as its marker records it, with the levels of its uploaded version; null when it records none. */
export function markerSetRollout(description: string | null): (RolloutRecord & { enforced: string | null }) | null {
  const record = markerRollout(description);
  if (record === null) return null;
  return { ...record, enforced: TRAILING_MARKER.exec(description!)?.groups?.['levels'] ?? null };
}

/** The description as declared: without any source's marker; null when nothing else is left. */
export function stripMarker(description: string | null): string | null {
  if (description === null) return null;
  const match = TRAILING_MARKER.exec(description);
  if (match === null) return description;
  const before = description.slice(0, match.index);
  if (before === '') return null;
  if (before.endsWith('\r\n\r\n')) return before.slice(0, -4);
  if (before.endsWith(SEPARATOR)) return before.slice(0, -SEPARATOR.length);
  return before;
}

/** The source named by the description's marker, or null when it has none. */
export function markerSource(description: string | null): string | null {
  if (description === null) return null;
  return TRAILING_MARKER.exec(description)?.groups?.['source'] ?? null;
}
