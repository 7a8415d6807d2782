/**
 * The `data.<path>` references of Rego code, found line by line as the code is read: comments (`#` to the end of the
 * line), string literals (`"..."` with escapes) and raw strings (backquoted, possibly over several lines) are skipped, so
 * a reference named only in a comment or a message is not one.
 */

/** One reference: the dotted path after `data.` (e.g. `utils.resource`) and the first line it is on (1-based). */
export interface RegoReference {
  path: string;
  line: number;
}

/** `data` as a root (not `x.data`, not `metadata`) followed by one or more `.name` parts. */
const REFERENCE = /(?<![\w.$])data((?:\.[A-Za-z_]\w*)+)/g;

/** What starts a comment or a string. */
const SPECIAL = /[#`"]/g;

/** A scanner fed one line at a time; it remembers a raw string left open at the end of a line. */
export interface RegoReferenceScan {
  /** Reads one line; `inString` tells whether it starts inside a raw string. */
  line(text: string, lineNumber: number): void;
  /** True while a raw string opened on an earlier line is still open (such a line is no import). */
  readonly inString: boolean;
  /** Each distinct path once, with the first line it is on, in the order first seen. */
  references(): RegoReference[];
}

export function createRegoReferenceScan(): RegoReferenceScan {
  const firstLine = new Map<string, number>();
  let inRaw = false;
  const scan: RegoReferenceScan = {
    get inString() {
      return inRaw;
    },
    line(text, lineNumber) {
      // Most lines hold neither a reference nor a backquote: they cannot change anything.
      if (!inRaw && !text.includes('`') && !text.includes('data.')) return;
      const code = codeOf(text);
      if (!code.includes('data.')) return;
      for (const found of code.matchAll(REFERENCE)) {
        const path = (found[1] as string).slice(1);
        if (!firstLine.has(path)) firstLine.set(path, lineNumber);
      }
    },
    references: () => [...firstLine].map(([path, line]) => ({ path, line })),
  };
  /** The line with its comment cut off and each string replaced by a space (which keeps `"a"data.x` apart). */
  function codeOf(text: string): string {
    if (!inRaw && !text.includes('`') && !text.includes('"') && !text.includes('#')) return text;
    let code = '';
    let at = 0;
    while (at < text.length) {
      if (inRaw) {
        const end = text.indexOf('`', at);
        if (end < 0) return code;
        inRaw = false;
        at = end + 1;
        code += ' ';
        continue;
      }
      SPECIAL.lastIndex = at;
      const special = SPECIAL.exec(text);
      if (special === null) return code + text.slice(at);
      code += `${text.slice(at, special.index)} `;
      if (special[0] === '#') return code;
      if (special[0] === '`') inRaw = true;
      at = special[0] === '"' ? closingQuote(text, special.index + 1) + 1 : special.index + 1;
    }
    return code;
  }
  return scan;
}

/** The index of the `"` that closes a string whose text starts at `from` (the line's end when none does). */
function closingQuote(text: string, from: number): number {
  let at = from;
  while (at < text.length && text[at] !== '"') at += text[at] === '\\' ? 2 : 1;
  return at;
}
