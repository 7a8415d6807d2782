/**
 * An id's shape is defined once, in src/api/ids.ts (`idPattern`); the published schemas repeat it in their `pattern`s
 * (JSON cannot import it). Every id-shaped piece of every schema pattern is the one of ids.ts, and what a schema's id
 * pattern accepts is exactly what `isId` accepts.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { ID_PREFIXES, idPattern, isId, MAX_ID_SUFFIX, type IdKind } from '../src/api/ids.js';
import { REPO_ROOT } from './helpers/repo-root.js';

const SCHEMAS = path.join(REPO_ROOT, 'schemas');
const KIND_OF = new Map(Object.entries(ID_PREFIXES).map(([kind, prefix]) => [prefix, kind as IdKind]));

function patterns(node: unknown, found: Array<{ file: string; pattern: string }>, file: string): void {
  if (Array.isArray(node)) node.forEach((item) => patterns(item, found, file));
  else if (typeof node === 'object' && node !== null) {
    const pattern = (node as { pattern?: unknown }).pattern;
    if (typeof pattern === 'string') found.push({ file, pattern });
    for (const value of Object.values(node)) patterns(value, found, file);
  }
}

const all: Array<{ file: string; pattern: string }> = [];
for (const file of readdirSync(SCHEMAS).filter((name) => name.endsWith('.json'))) patterns(JSON.parse(readFileSync(path.join(SCHEMAS, file), 'utf8')), all, file);

/** `ws-[A-Za-z0-9_-]{1,64}`: a prefix followed by a character class and a bound, as an id is written in a pattern. */
const ID_PIECE = /(?<![A-Za-z])([a-z]+)-\[[^\]]*\]\{[^}]*\}/g;

test('every id written in a schema pattern has the shape src/api/ids.ts defines', () => {
  const pieces = all.flatMap(({ file, pattern }) => [...pattern.matchAll(ID_PIECE)].map((m) => ({ file, pattern, piece: m[0], prefix: m[1]! })));
  assert.ok(pieces.length >= 11, `the schemas' id patterns were not found: ${JSON.stringify(pieces)}`);
  for (const { file, pattern, piece, prefix } of pieces) {
    const kind = KIND_OF.get(prefix);
    assert.ok(kind !== undefined, `${file}: ${pattern}: ${prefix}- is no id prefix of ids.ts`);
    assert.equal(piece, idPattern(kind), `${file}: ${pattern}`);
  }
});

test('every schema description that gives an id\'s bound gives the one of ids.ts', () => {
  const texts = readdirSync(SCHEMAS).filter((name) => name.endsWith('.json')).flatMap((file) => [...readFileSync(path.join(SCHEMAS, file), 'utf8').matchAll(/([a-z]+)- followed by at most (\d+)/g)].map((m) => ({ file, prefix: m[1]!, bound: Number(m[2]) })));
  assert.ok(texts.length >= 8, JSON.stringify(texts));
  for (const { file, prefix, bound } of texts) {
    assert.ok(KIND_OF.has(prefix), `${file}: ${prefix}- is no id prefix of ids.ts`);
    assert.equal(bound, MAX_ID_SUFFIX, `${file}: ${prefix}- followed by at most ${bound}`);
  }
});

test('the prefixes a name may not start with (another resource\'s id) are prefixes of ids.ts', () => {
  const lists = all.flatMap(({ file, pattern }) => [...pattern.matchAll(/\(\?!\(([a-z|]+)\)-\)/g)].map((m) => ({ file, names: m[1]!.split('|') })));
  assert.ok(lists.length >= 4, JSON.stringify(lists));
  for (const { file, names } of lists) for (const name of names) assert.ok(KIND_OF.has(name), `${file}: ${name}- is no id prefix of ids.ts`);
});

test('a schema pattern that is an id accepts exactly what isId accepts', () => {
  const samples = (prefix: string) => [
    `${prefix}-a`, `${prefix}-AbC_12-x`, `${prefix}-${'a'.repeat(MAX_ID_SUFFIX)}`, `${prefix}-${'a'.repeat(MAX_ID_SUFFIX + 1)}`,
    `${prefix}-`, `${prefix}-a/b`, `${prefix}-..`, `${prefix}-é`, `${prefix}-*`, `x${prefix}-a`,
  ];
  const exact = all.filter(({ pattern }) => /^\^[a-z]+-\[[^\]]*\]\{[^}]*\}\$$/.test(pattern));
  assert.ok(exact.length >= 5, JSON.stringify(exact));
  for (const { file, pattern } of exact) {
    const prefix = /^\^([a-z]+)-/.exec(pattern)![1]!;
    const kind = KIND_OF.get(prefix)!;
    const schema = new RegExp(pattern, 'u');
    for (const sample of samples(prefix)) assert.equal(schema.test(sample), isId(kind, sample), `${file}: ${pattern} on ${sample}`);
  }
});
