/**
 * Text from the repo, the API or a saved plan made printable for a terminal: control characters (C0, DEL, C1) and the
 * Unicode marks that reorder or hide text (bidirectional overrides and isolates, zero-width marks) are shown as
 * `\u{…}` escapes, so that a name can neither move the cursor, recolour the screen nor disguise itself. Pure.
 */

// eslint-disable-next-line no-control-regex
const UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u2028\u2029\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/gu;
// eslint-disable-next-line no-control-regex
const UNPRINTABLE_BUT_TAB = /[\u0000-\u0008\u000a-\u001f\u007f-\u009f\u200b-\u200f\u2028\u2029\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/gu;

function escaped(char: string): string {
  return `\\u{${(char.codePointAt(0) ?? 0).toString(16)}}`;
}

/** One-line text (a name, a reason, a value, a message): every unprintable character escaped. */
export function printable(text: string): string {
  return text.replace(UNPRINTABLE, escaped);
}

/** A line of code in a diff: the same, except that a tab stays a tab. */
export function printableCode(line: string): string {
  return line.replace(UNPRINTABLE_BUT_TAB, escaped);
}

/**
 * Text of several lines this tool composed (a usage message, a list of problems): each line printable, the line
 * breaks kept. Never for text from outside as a whole: its own line breaks would pass for the tool's.
 */
export function printableLines(text: string): string {
  return text.split('\n').map(printable).join('\n');
}
