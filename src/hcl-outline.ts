/**
 * The outline of an HCL file that parses: its blocks (type, labels) and attributes (name), each with the line and
 * column where it starts, nested as the file nests them. The parser (`hcl.ts`) gives values without positions; this
 * gives the positions, so a message can point at `polcy` or `enforcment_level` where it was typed. It reads only what
 * starts a statement of a body: strings, comments, heredocs and expressions (an object after `=` included) are skipped.
 */

export interface OutlineItem {
  kind: 'block' | 'attribute';
  name: string;
  /** A block's labels, unquoted; empty for an attribute. */
  labels: string[];
  line: number;
  column: number;
  /** A block's body; empty for an attribute. */
  items: OutlineItem[];
}

interface Cursor {
  text: string;
  at: number;
  line: number;
  column: number;
}

/** The outline of `text`, a file the parser has accepted. */
export function outlineHcl(text: string): OutlineItem[] {
  const cursor: Cursor = { text, at: 0, line: 1, column: 1 };
  return readBody(cursor, false);
}

function readBody(c: Cursor, nested: boolean): OutlineItem[] {
  const items: OutlineItem[] = [];
  for (;;) {
    skipSpace(c, true);
    if (c.at >= c.text.length) return items;
    const char = c.text[c.at]!;
    if (char === '}' && nested) {
      advance(c, 1);
      return items;
    }
    const start = { line: c.line, column: c.column };
    const name = readIdentifier(c);
    if (name === '') {
      advance(c, 1);
      continue;
    }
    const labels: string[] = [];
    for (;;) {
      skipSpace(c, false);
      const next = c.text[c.at];
      if (next === '"') labels.push(readString(c));
      else if (next !== undefined && /[A-Za-z_]/.test(next)) labels.push(readIdentifier(c));
      else break;
    }
    if (c.text[c.at] === '=') {
      advance(c, 1);
      skipExpression(c);
      items.push({ kind: 'attribute', name, labels: [], ...start, items: [] });
    } else if (c.text[c.at] === '{') {
      advance(c, 1);
      items.push({ kind: 'block', name, labels, ...start, items: readBody(c, true) });
    }
  }
}

function advance(c: Cursor, count: number): void {
  for (let i = 0; i < count && c.at < c.text.length; i += 1) {
    if (c.text[c.at] === '\n') {
      c.line += 1;
      c.column = 1;
    } else c.column += 1;
    c.at += 1;
  }
}

/** Spaces and comments; line ends too when `lines`. */
function skipSpace(c: Cursor, lines: boolean): void {
  for (;;) {
    const char = c.text[c.at];
    if (char === ' ' || char === '\t' || char === '\r' || (lines && char === '\n')) advance(c, 1);
    else if (char === '#' || (char === '/' && c.text[c.at + 1] === '/')) while (c.at < c.text.length && c.text[c.at] !== '\n') advance(c, 1);
    else if (char === '/' && c.text[c.at + 1] === '*') {
      const end = c.text.indexOf('*/', c.at + 2);
      advance(c, (end === -1 ? c.text.length : end + 2) - c.at);
    } else return;
  }
}

function readIdentifier(c: Cursor): string {
  const match = /^[A-Za-z_][A-Za-z0-9_-]*/.exec(c.text.slice(c.at, c.at + 256));
  if (match === null) return '';
  advance(c, match[0].length);
  return match[0];
}

/** A quoted string, `${…}` inside it included; answers its text without the quotes. */
function readString(c: Cursor): string {
  const from = c.at + 1;
  advance(c, 1);
  let depth = 0;
  while (c.at < c.text.length) {
    const char = c.text[c.at]!;
    if (char === '\\') advance(c, 2);
    else if (char === '$' && c.text[c.at + 1] === '{') {
      depth += 1;
      advance(c, 2);
    } else if (char === '}' && depth > 0) {
      depth -= 1;
      advance(c, 1);
    } else if (char === '"' && depth === 0) {
      advance(c, 1);
      return c.text.slice(from, c.at - 1);
    } else advance(c, 1);
  }
  return c.text.slice(from);
}

/** An attribute's value: up to the line end outside any bracket, heredocs whole. */
function skipExpression(c: Cursor): void {
  let depth = 0;
  while (c.at < c.text.length) {
    skipSpace(c, depth > 0);
    const char = c.text[c.at];
    if (char === undefined || (char === '\n' && depth === 0)) return;
    if (char === '"') readString(c);
    else if (char === '<' && c.text[c.at + 1] === '<') skipHeredoc(c);
    else if (char === '{' || char === '[' || char === '(') {
      depth += 1;
      advance(c, 1);
    } else if (char === '}' || char === ']' || char === ')') {
      if (depth === 0) return;
      depth -= 1;
      advance(c, 1);
    } else advance(c, 1);
  }
}

function skipHeredoc(c: Cursor): void {
  const match = /^<<-?([A-Za-z_][A-Za-z0-9_]*)[^\n]*\n/.exec(c.text.slice(c.at, c.at + 256));
  if (match === null) {
    advance(c, 2);
    return;
  }
  const end = new RegExp(`^[ \\t]*${match[1]}[ \\t]*$`, 'm');
  const rest = c.text.slice(c.at + match[0].length);
  const found = end.exec(rest);
  advance(c, match[0].length + (found === null ? rest.length : found.index + found[0].length));
}
