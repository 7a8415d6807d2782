/** No function of src/ is over 100 lines, closures included: a longer one holds several ideas in shared state. */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { test } from 'node:test';
import type * as TypeScript from 'typescript';
import { REPO_ROOT } from './helpers/repo-root.js';

const MAX_LINES = 100;
/**
 * TypeScript through require: it is one CommonJS file of 9 MB, which an `import` would also scan for ES module syntax
 * and for its export names (about half a CPU-second more).
 */
const ts = createRequire(import.meta.url)('typescript') as typeof TypeScript;

/** Every function of a file (declarations, methods, arrows, expressions) with its first line and length in lines. */
function functionLengths(file: string): Array<{ name: string; line: number; lines: number }> {
  const text = readFileSync(file, 'utf8');
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: Array<{ name: string; line: number; lines: number }> = [];
  const visit = (node: TypeScript.Node): void => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body !== undefined) {
      const start = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const end = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      const named = (node as TypeScript.FunctionLikeDeclaration).name;
      const parent = node.parent;
      const name = named !== undefined ? named.getText(source)
        : ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) ? parent.name.getText(source) : '(anonymous)';
      found.push({ name, line: start + 1, lines: end - start + 1 });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** Written by a person: not a `.generated.ts` file (ajv's validators, written by scripts/schema-validators.mjs). */
const handWritten = (name: string) => name.endsWith('.ts') && !name.endsWith('.generated.ts');

test(`no function of src/ is over ${MAX_LINES} lines`, () => {
  const src = path.join(REPO_ROOT, 'src');
  const files = readdirSync(src, { recursive: true, withFileTypes: true }).filter((e) => e.isFile() && handWritten(e.name)).map((e) => path.join(e.parentPath, e.name));
  const long = files.flatMap((file) => functionLengths(file).filter((f) => f.lines > MAX_LINES).map((f) => `${path.relative(REPO_ROOT, file)}:${f.line} ${f.name} (${f.lines} lines)`));
  assert.deepEqual(long, []);
});
