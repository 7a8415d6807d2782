import assert from 'node:assert/strict';
import { test } from 'node:test';
import { renderJson, renderMarkdown, renderText, shouldColor, summarize } from '../src/output/index.js';
import { inlineCode } from '../src/output/markdown.js';
import { planChanges } from '../src/plan/plan.js';
import type { SourcePlan } from '../src/plan/types.js';
import { emptyPlans, neverPingedPlans, richPlans } from './helpers/output-plans.js';
import { declaredPolicy, defaultOptions, livePolicy } from './helpers/plan-fixtures.js';

const ESC = '\u001b[';

function tty(isTTY: boolean): NodeJS.WriteStream {
  return { isTTY } as NodeJS.WriteStream;
}

test('shouldColor: a terminal without NO_COLOR only', () => {
  assert.equal(shouldColor(tty(true), {}), true);
  assert.equal(shouldColor(tty(false), {}), false);
  assert.equal(shouldColor(tty(true), { NO_COLOR: '1' }), false);
  assert.equal(shouldColor(tty(true), { NO_COLOR: '' }), true);
  assert.equal(shouldColor(tty(true), { TERM: 'dumb' }), false);
  assert.equal(shouldColor(tty(false), { FORCE_COLOR: '1' }), true);
  assert.equal(shouldColor(tty(false), { FORCE_COLOR: '0' }), false);
  assert.equal(shouldColor(tty(true), { NO_COLOR: '1', FORCE_COLOR: '1' }), false);
});

test('text has colour only when asked', () => {
  assert.ok(!renderText(richPlans(), { color: false }).includes(ESC));
  const coloured = renderText(richPlans(), { color: true });
  assert.ok(coloured.includes(`${ESC}32m  +${ESC}0m resource "policy" "new-policy"`));
  assert.ok(coloured.includes(`${ESC}35m-/+${ESC}0m resource "policy" "kind-change"`));
  assert.ok(coloured.includes(`${ESC}31m-    r.tags is not null${ESC}0m`));
});

test('summarize counts every action, agent clean-ups and deletes included', () => {
  assert.deepEqual(summarize(richPlans()), { create: 2, update: 3, replace: 1, delete: 3 });
  assert.deepEqual(summarize(emptyPlans()), { create: 0, update: 0, replace: 0, delete: 0 });
});

test('an agent that never pinged is deleted with a null last ping in every format', () => {
  const plans = neverPingedPlans();
  const reason = 'agent clean-up in pool "build": exited, never pinged, registered 2026-01-01T00:00:00.000Z, older than 1h';
  const text = renderText(plans, { color: false });
  assert.ok(text.includes(`  # agent "runner-9" will be destroyed (${reason})`), text);
  assert.ok(text.includes('      - last-ping-at = null -> null\n'), text);
  const markdown = renderMarkdown(plans);
  assert.ok(markdown.includes('  - `last-ping-at`: `null` → `null`'), markdown);
  const change = JSON.parse(renderJson(plans)).sources[0].changes[0];
  assert.deepEqual(change.fields, { status: { before: 'exited', after: null }, 'last-ping-at': { before: null, after: null } });
  assert.equal(change.reason, reason);
});

test('a plan with only deletions is not "no changes"', () => {
  const plan = planChanges({ policies: [declaredPolicy({ name: 'keep' })], pools: [] },
    { policies: [livePolicy({ name: 'keep', description: '<!-- managed-by: policy-pool-sync source=main -->' }), livePolicy({ name: 'gone', description: '<!-- managed-by: policy-pool-sync source=main -->' })], pools: [] },
    defaultOptions({ prune: true }));
  const plans: SourcePlan[] = [{ name: 'main', organization: 'org', revision: null, plan }];
  assert.match(renderText(plans, { color: false }), /Plan: 0 to create, 0 to update, 0 to replace, 1 to delete\.\n$/);
  assert.equal(JSON.parse(renderJson(plans)).summary.delete, 1);
});

test('errors without changes do not claim the API is in sync', () => {
  const plans: SourcePlan[] = [{ name: 'main', organization: 'org', revision: null, plan: { changes: [], warnings: [], errors: ['policies/a.yaml:3: unknown key "levle"'] } }];
  const text = renderText(plans, { color: false });
  assert.ok(text.includes('policies/a.yaml:3: unknown key "levle"'));
  assert.ok(!text.includes('matches the declared repo'));
  assert.ok(renderMarkdown(plans).includes('unknown key "levle"'));
});

test('JSON has exactly the format_version 1 shape, code described but never whole, and is deterministic', () => {
  const text = renderJson(richPlans());
  assert.equal(text, renderJson(richPlans()));
  assert.ok(text.endsWith('}\n'));
  const doc = JSON.parse(text);
  assert.deepEqual(Object.keys(doc), ['format_version', 'sources', 'summary']);
  assert.equal(doc.format_version, '1');
  assert.deepEqual(Object.keys(doc.sources[0]), ['name', 'organization', 'revision', 'changes', 'warnings', 'errors']);
  assert.equal(doc.sources[1].revision, null);
  for (const change of doc.sources[0].changes) {
    // A set's or a pool's change may add its scope by name (the names of its ids, what its wildcards matched).
    const scoped = change.scope !== undefined && (change.resource === 'policy-set' || change.resource === 'agent-pool');
    assert.deepEqual(Object.keys(change), ['resource', 'name', 'id', 'action', 'reason', 'fields', ...(scoped ? ['scope'] : [])]);
    for (const field of Object.values(change.fields)) assert.deepEqual(Object.keys(field as object), ['before', 'after']);
  }
  const update = doc.sources[0].changes.find((c: { name: string }) => c.name === 'require-tags');
  const { before, after } = update.fields.code;
  assert.deepEqual(Object.keys(before), ['sha256', 'bytes', 'lines']);
  assert.match(before.sha256, /^[0-9a-f]{64}$/);
  assert.notEqual(before.sha256, after.sha256);
  assert.ok(before.bytes > after.bytes - 40 && before.lines === after.lines, JSON.stringify(update.fields.code));
  assert.ok(!text.includes('r.tags contains'), 'no code text in the JSON plan');
  assert.equal(doc.sources[0].changes.find((c: { action: string }) => c.action === 'create').id, null);
  assert.deepEqual(doc.summary, { create: 2, update: 3, replace: 1, delete: 3 });
});

test('the code diff ignores line ends: only the real change shows', () => {
  const text = renderText(richPlans(), { color: false });
  const diff = text.split('\n').filter((l) => /^ {10}[-+][^-+]/.test(l));
  assert.deepEqual(diff.map((l) => l.trim()), ['-    r.tags is not null', '+    r.tags contains "owner"']);
});

test('Markdown escapes what would break it', () => {
  assert.equal(inlineCode('a|b'), '`a\\|b`');
  assert.equal(inlineCode('has ` tick'), '``has ` tick``');
  assert.equal(inlineCode('`edge`'), '`` `edge` ``');
  const plans: SourcePlan[] = [{
    name: 'main', organization: 'org', revision: null,
    plan: {
      changes: [],
      warnings: ['policy "x": description has | pipes, `ticks`, </details> and *stars*'],
      errors: ['bad\nnewline'],
    },
  }];
  const md = renderMarkdown(plans);
  assert.ok(md.includes('has \\| pipes, \\`ticks\\`, &lt;/details&gt; and \\*stars\\*'));
  assert.ok(!md.includes('</details> and'));
  assert.ok(md.includes('bad newline'));
});

test('Markdown code diffs use a fence no line inside can close', () => {
  const code = 'x = 1\n```\ny = 2\n';
  const plan = planChanges({ policies: [declaredPolicy({ name: 'fence', code: code.replace('y = 2', 'y = 3') })], pools: [] },
    { policies: [livePolicy({ name: 'fence', code, description: '<!-- managed-by: policy-pool-sync source=main -->' })], pools: [] },
    defaultOptions());
  const md = renderMarkdown([{ name: 'main', organization: 'org', revision: null, plan }]);
  assert.ok(md.includes('  ````diff\n'));
  assert.ok(md.includes('\n  -y = 2\n  +y = 3\n  ````\n'));
  assert.ok(md.includes('<details><summary><b>~ update</b> policy <code>fence</code>'));
});
