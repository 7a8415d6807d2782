import assert from 'node:assert/strict';
import { readFile, writeFile, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import { renderJson, renderMarkdown, renderText } from '../src/output/index.js';
import type { SourcePlan } from '../src/plan/types.js';
import { emptyPlans, richPlans } from './helpers/output-plans.js';
import { REPO_ROOT } from './helpers/repo-root.js';

// Golden files under test/golden/; UPDATE_GOLDEN=1 rewrites them (review the diff before committing).
const GOLDEN = path.join(REPO_ROOT, 'test/golden');

async function golden(file: string, actual: string): Promise<void> {
  const full = path.join(GOLDEN, file);
  if (process.env['UPDATE_GOLDEN'] === '1') {
    await mkdir(GOLDEN, { recursive: true });
    await writeFile(full, actual);
  }
  assert.equal(actual, await readFile(full, 'utf8'), `${file} differs from its golden file (UPDATE_GOLDEN=1 to rewrite)`);
}

const cases: Array<[string, () => SourcePlan[]]> = [['rich', richPlans], ['empty', emptyPlans]];

for (const [name, plans] of cases) {
  test(`${name} plan as text`, () => golden(`${name}.txt`, renderText(plans(), { color: false })));
  test(`${name} plan as coloured text`, () => golden(`${name}.color.txt`, renderText(plans(), { color: true })));
  test(`${name} plan as JSON`, () => golden(`${name}.json`, renderJson(plans())));
  test(`${name} plan as Markdown`, () => golden(`${name}.md`, renderMarkdown(plans())));
}
