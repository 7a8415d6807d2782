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
const TRAILING_MARKER = /<!-- managed-by: policy-pool-sync source=(.+?)(?: content=sha256:([0-9a-f]{64}))?(?: sensitive=([0-9a-f]{64}))?(?: rollout=([0-9a-f]{16})\.([0-9]{1,15})\.(held|promoted))? -->[ \t\r\n]*$/;

/**
 * The marker; a versioned policy set's also records the digest of the content it last saw ready
 * (`content=sha256:<hex>`), and a set with sensitive parameters their keyed digest (`sensitive=<hex>`).
 */
export function marker(source: string, contentDigest: string | null = null, sensitiveDigest: string | null = null, rollout: RolloutRecord | null = null): string {
  const content = contentDigest === null ? '' : ` content=sha256:${contentDigest}`;
  const sensitive = sensitiveDigest === null ? '' : ` sensitive=${sensitiveDigest}`;
  const staged = rollout === null ? '' : ` rollout=${rollout.digest}.${rollout.startedAt}.${rollout.state}`;
  return `${PREFIX}${source}${content}${sensitive}${staged}${SUFFIX}`;
}

export function withMarker(
  description: string | null, source: string, contentDigest: string | null = null, sensitiveDigest: string | null = null, rollout: RolloutRecord | null = null,
): string {
  if (description === null) return marker(source, contentDigest, sensitiveDigest, rollout);
  return `${description}${SEPARATOR}${marker(source, contentDigest, sensitiveDigest, rollout)}`;
}

/**
 * A policy's rollout as its marker records it (a policy with a `rollout:` block: which rollout, when it began, held or
 * promoted), so that every runner, a CI job with no state dir included, finds it; null when it records none.
 */
export function markerRollout(description: string | null): RolloutRecord | null {
  if (description === null) return null;
  const match = TRAILING_MARKER.exec(description);
  if (match?.[4] === undefined) return null;
  return { digest: match[4], startedAt: Number(match[5]), state: match[6] as RolloutRecord['state'] };
}

/** The keyed digest of sensitive parameters a policy set's marker records, or null. */
export function markerSensitive(description: string | null): string | null {
  if (description === null) return null;
  return TRAILING_MARKER.exec(description)?.[3] ?? null;
}

/** The content digest a policy set's marker records, or null when it records none. */
export function markerContent(description: string | null): string | null {
  if (description === null) return null;
  return TRAILING_MARKER.exec(description)?.[2] ?? null;
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
  return TRAILING_MARKER.exec(description)?.[1] ?? null;
}
