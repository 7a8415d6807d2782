import { isAlias, isMap, isScalar, isSeq, LineCounter, parseDocument, type Document, type Node } from 'yaml';
import type { SourceProblem } from '../errors.js';
import type { KeyPath } from './key-path.js';

/**
 * How many times a file may use its YAML aliases. Each use copies the anchored value, so a few lines
 * of nested aliases could otherwise expand into gigabytes.
 */
const MAX_ALIAS_COUNT = 100;

/** A parsed YAML file that can tell the line of any value or key in it. */
export interface YamlDocument {
  /** The file the text came from, as problems name it. */
  file: string;
  /** The plain value; null for an empty file. */
  value: unknown;
  /** 1-based line of the value at `path`, or of its deepest parent that exists. */
  lineOf(path: KeyPath): number | undefined;
  /** 1-based line of the key that `path`'s last segment names; the value's line when that is a list index or not there. */
  lineOfKey(path: KeyPath): number | undefined;
  /** A problem about the value at `path` (or its key, for an unknown or misplaced key): file, line and message. */
  problem(path: KeyPath, message: string, at?: 'value' | 'key'): SourceProblem;
}

/** Parses YAML text; every syntax error is a problem naming the file and line. Duplicate keys are errors. */
export function parseYaml(text: string, file: string): { doc: YamlDocument } | { problems: SourceProblem[] } {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: true });
  if (doc.errors.length > 0) {
    // An error at the very end (an unclosed quote or bracket) is shown on the last line that has text.
    const lastText = Math.max(0, text.trimEnd().length - 1);
    const problems = doc.errors.map((error) => ({
      file,
      line: lines.linePos(Math.min(error.pos[0], lastText)).line,
      message: `YAML syntax error: ${firstLine(error.message)}`,
    }));
    return { problems };
  }
  let value: unknown;
  try {
    value = doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT }) ?? null;
  } catch (error) {
    return { problems: [{ file, message: `YAML error: ${firstLine((error as Error).message)} (more than ${MAX_ALIAS_COUNT} alias uses)` }] };
  }
  const lineAt = (node: Node | null | undefined): number | undefined => (node?.range ? lines.linePos(node.range[0]).line : undefined);
  const located: YamlDocument = {
    file,
    value,
    lineOf: (path) => lineAt(walk(doc, path).node),
    lineOfKey(path) {
      const parent = walk(doc, path.slice(0, -1));
      const last = path.at(-1);
      const map = resolve(doc, parent.node);
      if (parent.complete && typeof last === 'string' && isMap(map)) {
        const pair = map.items.find((item) => isScalar(item.key) && String(item.key.value) === last);
        if (pair !== undefined && isScalar(pair.key)) return lineAt(pair.key);
      }
      return located.lineOf(path);
    },
    problem(path, message, at = 'value') {
      const line = at === 'key' ? located.lineOfKey(path) : located.lineOf(path);
      return line === undefined ? { file, message } : { file, line, message };
    },
  };
  return { doc: located };
}

/** The first line of a message: `yaml` may add a code excerpt after it. */
function firstLine(message: string): string {
  return message.split('\n')[0] ?? message;
}

function resolve(doc: Document, node: Node | null | undefined): Node | null {
  if (node === undefined) return null;
  return isAlias(node) ? (node.resolve(doc) ?? null) : node;
}

/** Follows `path` through the document's nodes (and through aliases), stopping at the deepest node that exists. */
function walk(doc: Document, path: KeyPath): { node: Node | null; complete: boolean } {
  let node = (doc.contents ?? null) as Node | null;
  for (const segment of path) {
    const parent = resolve(doc, node);
    let child: unknown;
    if (isMap(parent)) {
      child = parent.items.find((item) => isScalar(item.key) && String(item.key.value) === String(segment))?.value;
    } else if (isSeq(parent)) {
      child = parent.items[Number(segment)];
    }
    if (!isNodeLike(child)) return { node, complete: false };
    node = child;
  }
  return { node, complete: true };
}

function isNodeLike(value: unknown): value is Node {
  return typeof value === 'object' && value !== null && 'range' in value;
}
