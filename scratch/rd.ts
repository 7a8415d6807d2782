import { readDeclared } from '../src/declared/index.js';
import { mkdtempSync, cpSync, mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os'; import path from 'node:path';
const dir = mkdtempSync(path.join(os.tmpdir(), 'set-'));
cpSync('test/fixtures/corpus/fsbp-aws-set', path.join(dir, 'policy-sets/fsbp-aws'), { recursive: true });
mkdirSync(path.join(dir, 'policies')); writeFileSync(path.join(dir, 'policies/one.sentinel'), 'main = rule { true }\n');
const t = Date.now();
const d = await readDeclared(dir);
console.log(Date.now() - t, d.policies.map(p => p.name), JSON.stringify({ ...d.policySets![0], content: { ...d.policySets![0]!.content, files: d.policySets![0]!.content!.files.length } }), d.warnings);
