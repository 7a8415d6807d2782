const UNIT_MS: Readonly<Record<string, number>> = {
  s: 1_000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
};

/** Parses a duration like `0s`, `30s`, `15m`, `1h` or `2d` into milliseconds; null when it is not one. */
export function parseDuration(text: string): number | null {
  const match = /^(0|[1-9][0-9]*)([smhd])$/.exec(text);
  if (!match) return null;
  const unit = UNIT_MS[match[2] ?? ''];
  return unit === undefined ? null : Number(match[1]) * unit;
}
