/** A duration as written in the config: `15s`, `1500ms`, `1.5s` or `2m`. */
export const DURATION_PATTERN = '^[0-9]+(\\.[0-9]+)?(ms|s|m)$';

const UNIT_MS: Readonly<Record<string, number>> = { ms: 1, s: 1_000, m: 60_000 };

/** Milliseconds of a duration the schema accepted (`DURATION_PATTERN`); NaN for anything else. */
export function durationMs(text: string): number {
  const match = /^([0-9]+(?:\.[0-9]+)?)(ms|s|m)$/.exec(text);
  if (match === null) return Number.NaN;
  return Math.round(Number(match[1]) * (UNIT_MS[match[2] ?? ''] ?? Number.NaN));
}
