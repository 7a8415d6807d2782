import { LineCounter, isAlias, isMap, isScalar, isSeq, parseDocument, type Document, type Node } from 'yaml';

/** A parsed YAML file that can tell the line of any value or key in it. */
export interface YamlSource {
  /** The plain value; null for an empty file. */
  value: unknown;
  /** 1-based line of the value at a JSON pointer (as in ajv's `instancePath`), or of its deepest existing parent. */
  lineOf(pointer: string): number | undefined;
  /** 1-based line of `key` in the mapping at `pointer`. */
  lineOfKey(pointer: string, key: string): number | undefined;
}

export interface YamlSyntaxProblem {
  line: number | undefined;
  message: string;
}

export function parseYamlSource(text: string): { source: YamlSource } | { problems: YamlSyntaxProblem[] } {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: true });
  if (doc.errors.length > 0) {
    // An error at the very end (an unclosed quote or bracket) is shown on the last line that has text.
    const lastText = Math.max(0, text.trimEnd().length - 1);
    const problems = doc.errors.map((error) => ({
      line: lines.linePos(Math.min(error.pos[0], lastText)).line,
      message: `YAML syntax error: ${error.message}`,
    }));
    return { problems };
  }
  let value: unknown;
  try {
    value = doc.toJS({ maxAliasCount: 100 }) ?? null;
  } catch (error) {
    return { problems: [{ line: undefined, message: `YAML error: ${(error as Error).message}` }] };
  }
  const lineAt = (node: Node | null): number | undefined => (node?.range ? lines.linePos(node.range[0]).line : undefined);
  return {
    source: {
      value,
      lineOf: (pointer) => lineAt(deepestNode(doc, pointer)),
      lineOfKey(pointer, key) {
        const map = resolve(doc, deepestNode(doc, pointer));
        if (!isMap(map)) return lineAt(map);
        const pair = map.items.find((item) => isScalar(item.key) && String(item.key.value) === key);
        return lineAt(pair && isScalar(pair.key) ? pair.key : map);
      },
    },
  };
}

function resolve(doc: Document, node: Node | null): Node | null {
  return isAlias(node) ? (node.resolve(doc) ?? null) : node;
}

/** Follows a JSON pointer through the document's nodes, stopping at the last one that exists. */
function deepestNode(doc: Document, pointer: string): Node | null {
  let node = resolve(doc, doc.contents);
  const segments = pointer === '' ? [] : pointer.slice(1).split('/').map(unescapePointer);
  for (const segment of segments) {
    let child: unknown;
    if (isMap(node)) {
      child = node.items.find((item) => isScalar(item.key) && String(item.key.value) === segment)?.value;
    } else if (isSeq(node)) {
      child = node.items[Number(segment)];
    }
    if (!isNodeLike(child)) return node;
    node = resolve(doc, child);
  }
  return node;
}

function isNodeLike(value: unknown): value is Node {
  return typeof value === 'object' && value !== null && 'range' in value;
}

function unescapePointer(segment: string): string {
  return segment.replace(/~1/g, '/').replace(/~0/g, '~');
}
