/**
 * The candidate a mistyped word most likely meant, for "did you mean …?" in messages about unknown flags and keys;
 * null when none is close. Case and the choice between `-` and `_` are ignored; a swap of two neighbouring letters
 * counts as one edit. Close means at most one edit per three letters of the word (at least one); failing that, a word
 * of three letters or more that begins exactly one candidate (`--org` for `--organization`) means that candidate.
 */
export function closest(word: string, candidates: readonly string[]): string | null {
  const typed = fold(word);
  const limit = Math.max(1, Math.floor(typed.length / 3));
  let best: { candidate: string; distance: number } | null = null;
  for (const candidate of candidates) {
    const distance = editDistance(typed, fold(candidate));
    if (distance <= limit && (best === null || distance < best.distance)) best = { candidate, distance };
  }
  if (best !== null) return best.candidate;
  const prefixed = typed.length >= MIN_PREFIX ? candidates.filter((candidate) => fold(candidate).startsWith(typed)) : [];
  return prefixed.length === 1 ? (prefixed[0] as string) : null;
}

/** The shortest word read as the beginning of a longer one. */
const MIN_PREFIX = 3;

function fold(word: string): string {
  return word.toLowerCase().replace(/_/g, '-');
}

/** Edits (insert, delete, substitute, swap two neighbours) that turn `a` into `b`: the optimal string alignment distance. */
export function editDistance(a: string, b: string): number {
  const rows: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i, ...new Array<number>(b.length).fill(0)]);
  const row0 = rows[0]!;
  for (let j = 0; j <= b.length; j += 1) row0[j] = j;
  for (let i = 1; i <= a.length; i += 1) {
    const row = rows[i]!;
    const previous = rows[i - 1]!;
    for (let j = 1; j <= b.length; j += 1) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      row[j] = Math.min(previous[j]! + 1, row[j - 1]! + 1, previous[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) row[j] = Math.min(row[j]!, rows[i - 2]![j - 2]! + 1);
    }
  }
  return rows[a.length]![b.length]!;
}
