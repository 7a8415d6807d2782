import { isMap, isScalar, isSeq, LineCounter, parseDocument, type Document } from 'yaml';

/** A parsed YAML file that can tell the line of any key path in it. */
export interface LocatedYaml {
  /** The plain JavaScript value of the document. */
  value: unknown;
  /** Syntax errors, with their lines. */
  errors: { line: number; message: string }[];
  /** 1-based line of the node at `path` (or of its nearest existing parent); undefined for an empty document. */
  lineOf(path: readonly (string | number)[]): number | undefined;
  /** 1-based line of the key `path`'s last segment names, for "unknown key" errors. */
  keyLineOf(path: readonly (string | number)[]): number | undefined;
}

export function parseLocatedYaml(text: string): LocatedYaml {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, prettyErrors: false });
  const lineAt = (offset: number | undefined): number | undefined =>
    offset === undefined ? undefined : lineCounter.linePos(offset).line;
  const errors = doc.errors.map((e) => ({ line: lineAt(e.pos[0]) ?? 1, message: e.message.split('\n')[0] ?? e.message }));
  return {
    value: errors.length > 0 ? undefined : doc.toJS(),
    errors,
    lineOf: (path) => lineAt(nodeAt(doc, path)?.range?.[0]),
    keyLineOf: (path) => {
      const parent = nodeAt(doc, path.slice(0, -1));
      const last = path.at(-1);
      if (isMap(parent)) {
        const pair = parent.items.find((p) => isScalar(p.key) && p.key.value === last);
        if (pair !== undefined && isScalar(pair.key)) return lineAt(pair.key.range?.[0]);
      }
      return lineAt(parent?.range?.[0]);
    },
  };
}

interface RangedNode {
  range?: [number, number, number] | null;
}

/** The deepest node along `path` that exists. */
function nodeAt(doc: Document, path: readonly (string | number)[]): RangedNode | undefined {
  let node: unknown = doc.contents;
  for (const segment of path) {
    const next = isMap(node) || isSeq(node) ? node.get(segment, true) : undefined;
    if (next === undefined || next === null) break;
    node = next;
  }
  return (node ?? undefined) as RangedNode | undefined;
}
