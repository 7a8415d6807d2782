import { normalizeLineEnds } from '../line-ends.js';
import { printable, printableCode } from './printable.js';

// Escaping: any text from the repo or the API must print as itself.

/**
 * Free text for Markdown: HTML special characters as entities, Markdown punctuation backslash-escaped, on one line;
 * and what GitHub and GitLab would act on neutralised by a zero-width space (`&#8203;`), so that a name from the API
 * reads as itself and does nothing: after `@` (a mention of `@team` notifies it) and inside `://` (a bare URL becomes a
 * live link).
 */
export function escapeText(text: string): string {
  const escaped = printable(normalizeLineEnds(text).replace(/\n/g, ' '))
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/([\\`*_[\]|~#!])/g, '\\$1')
    .replace(/\n/g, ' ');
  return neutralised(escaped);
}

/** Between two characters, it keeps them from being read together (a mention, a link) and shows nothing. */
const ZERO_WIDTH_SPACE = '&#8203;';

/** `@` and `://` kept from acting (a mention, a live link) by a zero-width space. */
function neutralised(text: string): string {
  return text.replace(/@/g, `@${ZERO_WIDTH_SPACE}`).replace(/:\/\//g, `:${ZERO_WIDTH_SPACE}//`);
}


/** At most `max` characters, the last an ellipsis when cut. */
export function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/** Text for inside HTML tags such as `<summary>`; mentions and bare URLs neutralised as escapeText does. */
export function escapeHtml(text: string): string {
  return neutralised(printable(text).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;'));
}

function longestRun(text: string, char: string): number {
  let longest = 0;
  let run = 0;
  for (const c of text) {
    run = c === char ? run + 1 : 0;
    longest = Math.max(longest, run);
  }
  return longest;
}

/** A code span that holds any text: a fence longer than any backtick run inside, pipes escaped for tables. */
export function inlineCode(text: string): string {
  const oneLine = printable(normalizeLineEnds(text).replace(/\n/g, ' '));
  const fence = '`'.repeat(longestRun(oneLine, '`') + 1);
  const pad = oneLine.startsWith('`') || oneLine.endsWith('`') || oneLine.startsWith(' ') ? ' ' : '';
  return `${fence}${pad}${oneLine.replace(/\|/g, '\\|')}${pad}${fence}`;
}

/** A fenced code block that no line inside can close early. */
export function fencedBlock(lines: readonly string[], language: string): string[] {
  const fence = '`'.repeat(Math.max(3, longestRun(lines.join('\n'), '`') + 1));
  return [`${fence}${language}`, ...lines.map(printableCode), fence];
}
