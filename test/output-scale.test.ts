import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { codeDiffLines, MAX_DIFF_CHANGED_LINES } from '../src/output/describe.js';
import { renderJson, renderMarkdown, renderText } from '../src/output/index.js';
import { codeDigest } from '../src/code-content.js';
import { planChanges } from '../src/plan/plan.js';
import type { Change, SourcePlan } from '../src/plan/types.js';
import { declaredPolicy, defaultOptions, livePolicy } from './helpers/plan-fixtures.js';
import { ORG } from './helpers/emulator.js';
import { useWorld, type World } from './helpers/world.js';

const COUNT = 20_000;

function code(index: number, lines = 3): string {
  return Array.from({ length: lines }, (_, line) => `# policy ${index} line ${line}`).join('\n') + '\nmain = rule { true }\n';
}

/** A plan that creates 20,000 policies and updates the code of one more, as the planner makes it. */
function hugePlan(): SourcePlan[] {
  const declared = Array.from({ length: COUNT }, (_, i) => declaredPolicy({ name: `p-${String(i).padStart(5, '0')}`, code: code(i) }));
  declared.push(declaredPolicy({ name: 'zz-changed', code: 'main = rule { false }\n' }));
  const live = [livePolicy({ name: 'zz-changed', code: 'main = rule { true }\n', description: '<!-- managed-by: policy-pool-sync source=main -->' })];
  const plan = planChanges({ policies: declared, pools: [] }, { policies: live, pools: [] }, defaultOptions({ source: 'main', maxDeletes: 10 }));
  return [{ name: 'main', organization: 'org', revision: null, plan }];
}

function codeChange(before: string, after: string): Change {
  return {
    resource: 'policy', name: 'big', id: 'pol-big', action: 'update', reason: 'drift in code',
    fields: { code: { before, after } }, declared: null, live: null, uploadCode: true, adoptMarker: false,
  };
}

describe('a plan of 20,000 policies', () => {
  const plans = hugePlan();

  it('renders as text', () => {
    const text = renderText(plans, { color: false });
    assert.ok(text.endsWith(`Plan: ${COUNT} to create, 1 to update, 0 to replace, 0 to delete.\n`));
    assert.equal(text.split('\n').filter((l) => l.startsWith('  # policy "p-')).length, COUNT);
    assert.ok(text.includes('-main = rule { true }\n') || text.includes('-main = rule { true }'));
  });

  it('renders as JSON with every change and field, and no code text', () => {
    const json = renderJson(plans);
    const doc = JSON.parse(json) as { sources: Array<{ changes: Array<{ action: string; fields: Record<string, { after: unknown }> }> }>; summary: unknown };
    assert.deepEqual(doc.summary, { create: COUNT, update: 1, replace: 0, delete: 0 });
    const changes = doc.sources[0]!.changes;
    assert.equal(changes.length, COUNT + 1);
    assert.deepEqual(Object.keys(changes[0]!.fields), ['kind', 'enforcement-level', 'code']);
    assert.deepEqual(Object.keys(changes[0]!.fields['code']!.after as object), ['sha256', 'bytes', 'lines']);
    assert.ok(!json.includes('# policy 0 line'), 'no code text');
  });

  it('renders as Markdown within one comment, every change listed or counted', () => {
    const md = renderMarkdown(plans);
    assert.ok(md.length <= 60_000, `${md.length} characters`);
    assert.ok(md.includes(`| ${COUNT} | 1 | 0 | 0 |`));
    const listed = md.split('\n').filter((l) => /^- (\*\*\+ create\*\*|<details><summary><b>\+ create<\/b>) policy/.test(l)).length;
    const more = /#### To create \(\d+\)\n\n(?:.*\n)*?- … and (\d+) more\n/.exec(md);
    assert.ok(more, 'the cut list of creations says how many are left out');
    assert.equal(listed + Number(more[1]), COUNT);
  });
});

describe('code diffs are capped', () => {
  it('a small change shows whole, with its context', () => {
    const lines = codeDiffLines(codeChange('a\nb\nc\nd\n', 'a\nb\nC\nd\n'));
    assert.deepEqual(lines, ['--- live pol-big', '+++ declared', '@@ -1,4 +1,4 @@', ' a', ' b', '-c', '+C', ' d']);
  });

  it(`a rewrite of 1 MB shows the first ${MAX_DIFF_CHANGED_LINES} changed lines, then how many more changed`, () => {
    const make = (tag: string) => Array.from({ length: 12_000 }, (_, i) => `line ${i} ${tag} ${'x'.repeat(70)}`).join('\n') + '\n';
    const lines = codeDiffLines(codeChange(make('old'), make('new')));
    const changed = lines.slice(2).filter((l) => /^[-+]/.test(l));
    assert.equal(changed.length, MAX_DIFF_CHANGED_LINES);
    assert.equal(lines.at(-1), `… ${24_000 - MAX_DIFF_CHANGED_LINES} more lines changed`);
    assert.ok(changed.some((l) => l.startsWith('+line 0 new')), 'new lines show, not only removed ones');
  });

  it('lines inserted into a large file show as added, the rest as unchanged', () => {
    const base = Array.from({ length: 12_000 }, (_, i) => `line ${i}`).join('\n') + '\n';
    const inserted = Array.from({ length: 600 }, (_, i) => `new ${i}`).join('\n') + '\n';
    const lines = codeDiffLines(codeChange(base, inserted + base));
    assert.deepEqual(lines.slice(0, 4), ['--- live pol-big', '+++ declared', '@@ -1,3 +1,603 @@', '+new 0']);
    assert.ok(lines.slice(2).every((l) => !l.startsWith('-')), 'nothing removed');
    assert.equal(lines.at(-1), `… ${600 - MAX_DIFF_CHANGED_LINES} more lines changed`);
  });

  it('many scattered edits of a large file are shown line against line', () => {
    const base = Array.from({ length: 12_000 }, (_, i) => `line ${i}`);
    const edited = base.map((l, i) => (i % 10 === 5 ? `${l} edited` : l));
    const lines = codeDiffLines(codeChange(`${base.join('\n')}\n`, `${edited.join('\n')}\n`));
    assert.deepEqual(lines.slice(2, 10), ['@@ -3,7 +3,7 @@', ' line 2', ' line 3', ' line 4', '-line 5', '+line 5 edited', ' line 6', ' line 7']);
    assert.equal(lines.at(-1), `… ${2 * 1_200 - MAX_DIFF_CHANGED_LINES} more lines changed`);
  });
});

describe('one-shot runs over many policies', () => {
  const fixture = useWorld();
  let world: World;
  let dir: string;
  const count = 300;
  before(async () => {
    world = fixture.world;
    const files: Record<string, string> = {};
    for (let i = 0; i < count; i += 1) files[`policies/g${i % 7}/p-${i}.native`] = code(i);
    dir = await fixture.repo(files);
  });

  it('reconcile applies everything and exits 0; the next pass needs the list pages only', async () => {
    const applied = await world.cli('--reconcile', dir);
    assert.equal(applied.code, 0, applied.stderr.slice(-2000));
    assert.ok(applied.stdout.includes(`Apply complete! Resources: ${count} created, 0 updated, 0 replaced, 0 deleted.`));
    await world.clearRequests();
    const again = await world.cli('--dry-run', dir, ['--detailed-exitcode']);
    assert.equal(again.code, 0, again.stdout);
    const requests = await world.requests();
    assert.equal(requests.length, Math.ceil(count / 100) + 1, requests.map((r) => r.path).join('\n'));
    assert.ok(requests.every((r) => r.method === 'GET' && r.path.startsWith(`/organizations/${ORG}/`)));
  });
});

describe('large code is hashed as it downloads', () => {
  const fixture = useWorld();
  const large = (tag: string) => Array.from({ length: 5_000 }, (_, i) => `# ${tag} line ${i} ${'x'.repeat(60)}`).join('\n') + '\n';

  it('equal code is downloaded once and not kept; drifted code is downloaded again for its diff', async () => {
    const world = fixture.world;
    const dir = await fixture.repo({ 'policies/big.native': large('same'), 'policies/small.native': 'main = rule { true }\n' });
    const planned = await world.cli('--dry-run', dir, ['--output', 'json']);
    const creates = (JSON.parse(planned.stdout) as { sources: Array<{ changes: Array<{ name: string; fields: { code: { after: unknown } } }> }> }).sources[0]!.changes;
    assert.deepEqual(creates.map((c) => [c.name, c.fields.code.after]), [
      ['big', { sha256: codeDigest(large('same')), bytes: Buffer.byteLength(large('same')), lines: 5_000 }],
      ['small', { sha256: codeDigest('main = rule { true }\n'), bytes: 21, lines: 1 }],
    ]);
    const text = await world.cli('--dry-run', dir);
    assert.match(text.stdout, /\+ code += \(5000 lines, 388890 bytes\)/);
    assert.equal((await world.cli('--reconcile', dir)).code, 0);
    const downloads = async () => (await world.requests()).filter((r) => r.path.endsWith('/download')).length;

    await world.clearRequests();
    const same = await world.cli('--dry-run', dir, ['--detailed-exitcode', '--no-cache']);
    assert.equal(same.code, 0, same.stdout);
    assert.equal(await downloads(), 2, 'one download per policy');

    const policies = await world.policies();
    const id = (name: string) => policies.find((p) => p.name === name)!.id;
    const upload = (name: string, raw: string) => world.call('PUT', `/policies/${id(name)}/upload`, { raw, contentType: 'application/octet-stream' });
    await upload('big', large('same').replace('# same line 7 ', '# edited line 7 '));
    await upload('small', 'main = rule { false }\n');
    await world.clearRequests();
    const drifted = await world.cli('--dry-run', dir, ['--detailed-exitcode', '--no-cache']);
    assert.equal(drifted.code, 2);
    assert.match(drifted.stdout, /^ +-# edited line 7 x+$/m);
    assert.match(drifted.stdout, /^ +-main = rule \{ false \}$/m);
    assert.equal(await downloads(), 3, 'the large drifted code twice (hashed, then kept for its diff), the small one once');
  });
});
