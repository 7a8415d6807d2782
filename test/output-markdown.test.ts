import assert from 'node:assert/strict';
import { describe, it, test } from 'node:test';
import { renderApplied, renderMarkdown, renderText } from '../src/output/index.js';
import { withMarker } from '../src/plan/marker.js';
import { planChanges } from '../src/plan/plan.js';
import type { SourcePlan } from '../src/plan/types.js';
import { declaredPolicy, defaultOptions, livePolicy } from './helpers/plan-fixtures.js';
import { ORG } from './helpers/emulator.js';
import { richPlans } from './helpers/output-plans.js';
import { useWorld } from './helpers/world.js';

/** `count` policies whose 50-line code changed on every line: a plan far bigger than one comment (500 of them: over a megabyte of diff). */
function bigPlan(count: number): SourcePlan {
  const code = (tag: string) => Array.from({ length: 50 }, (_, i) => `rule_${i} = rule { "${tag}-${i}" is "${tag}-${i}" }`).join('\n');
  const names = Array.from({ length: count }, (_, i) => `policy-${String(i).padStart(5, '0')}`);
  const plan = planChanges(
    { policies: names.map((name) => declaredPolicy({ name, code: code('new'), description: 'd' })), pools: [] },
    { policies: names.map((name) => livePolicy({ name, code: code('old'), description: withMarker('d', 'main') })), pools: [] },
    defaultOptions({ source: 'main' }),
  );
  return { name: 'main', organization: 'org', revision: 'abc123', plan };
}

describe('Markdown size', () => {
  for (const count of [500, 5_000]) {
    it(`${count} code changes fit in one comment, summary first, the rest folded and cut`, () => {
      const md = renderMarkdown([bigPlan(count)]);
      assert.ok(md.length <= 60_000, `${md.length} characters`);
      assert.ok(md.startsWith('<!-- policy-pool-sync plan source=main -->\n## policy-pool-sync plan\n\n'), md.slice(0, 200));
      assert.ok(md.indexOf(`**Plan: 0 to create, ${count} to update`) < md.indexOf('| Source |'));
      assert.ok(md.indexOf(`| \`main\` | 0 | ${count} | 0 | 0 | changes |`) < md.indexOf(`#### To update in place (${count})`));
      const more = /- … and (\d+) more\n/.exec(md);
      if (count > 1000) assert.ok(more, 'the cut list says how many are left out');
      const listed = md.split('\n').filter((l) => /^- (\*\*~ update\*\*|<details>)/.test(l)).length;
      assert.equal(listed + Number(more?.[1] ?? 0), count, 'every change is listed or counted');
      // Diffs are capped: no fenced block runs longer than the cap.
      for (const block of md.split('```diff').slice(1)) {
        const lines = block.slice(0, block.indexOf('```')).split('\n').length;
        assert.ok(lines <= 63, `a diff of ${lines} lines`);
      }
      if (md.includes('```diff')) assert.match(md, /… \d+ more lines/);
    });
  }

  it('the first changes keep their details when there is room, later ones are one line each', () => {
    const md = renderMarkdown([bigPlan(500)]);
    assert.ok(md.includes('- <details><summary><b>~ update</b> policy <code>policy-00000</code>'));
    assert.ok(md.includes('- **~ update** policy `policy-00499`') || !md.includes('policy-00499'));
  });
});

describe('Markdown wording', () => {
  it('starts with one marker naming the source, or all sources comma-separated', () => {
    const plan = { changes: [], warnings: [], errors: [] };
    assert.ok(renderMarkdown([{ name: 'prod', organization: 'o', revision: null, plan }]).startsWith('<!-- policy-pool-sync plan source=prod -->\n'));
    const two = renderMarkdown([
      { name: 'a', organization: 'o', revision: null, plan },
      { name: 'b', organization: 'o', revision: null, plan },
    ]);
    assert.ok(two.startsWith('<!-- policy-pool-sync plan source=a,b -->\n'));
    assert.equal(two.match(/<!-- policy-pool-sync plan/g)?.length, 1);
  });

  it('errors are printed below the summary in Markdown, above the closing line in text, and each says so', () => {
    const plans: SourcePlan[] = [{ name: 'main', organization: 'o', revision: null, plan: { changes: [], warnings: [], errors: ['refused'] } }];
    const md = renderMarkdown(plans);
    assert.ok(md.includes('(see below)'));
    assert.ok(!md.includes('(see above)'));
    assert.ok(md.indexOf('(see below)') < md.indexOf('refused'));
    const text = renderText(plans, { color: false });
    assert.ok(text.includes('(see above)'));
    assert.ok(text.indexOf('refused') < text.indexOf('(see above)'));
  });

  it('a source whose live state could not be read never says "No changes"', () => {
    const plans: SourcePlan[] = [
      { name: 'main', organization: 'o', revision: null, plan: null, unreadable: 'live', errors: ['reading the live state of organization o failed: 503'] },
    ];
    const md = renderMarkdown(plans);
    assert.doesNotMatch(md, /No changes/);
    assert.match(md, /see the errors below/);
    assert.match(md, /\| `main` \| – \| – \| – \| – \| no plan: the live state could not be read/);
    assert.doesNotMatch(renderText(plans, { color: false }), /No changes/);
  });

  it('warnings are a collapsible list', () => {
    const plans: SourcePlan[] = [{ name: 'main', organization: 'o', revision: null, plan: { changes: [], warnings: ['one', 'two'], errors: [] } }];
    assert.match(renderMarkdown(plans), /<details><summary>⚠️ 2 warnings<\/summary>\n\n- one\n- two\n\n<\/details>/);
  });
});

test('undeclared live policies kept: the plan says how many, never that the API matches the repo', () => {
  const plan = planChanges(
    { policies: [declaredPolicy({ name: 'ours', code: 'x' })], pools: [] },
    {
      policies: [
        livePolicy({ name: 'ours', code: 'x', description: withMarker(null, 'main') }),
        livePolicy({ name: 'by-hand', description: null }),
        livePolicy({ name: 'retired', description: withMarker(null, 'main') }),
      ],
      pools: [],
    },
    defaultOptions({ source: 'main' }),
  );
  const plans: SourcePlan[] = [{ name: 'main', organization: 'o', revision: null, plan }];
  for (const rendered of [renderMarkdown(plans), renderText(plans, { color: false })]) {
    assert.doesNotMatch(rendered, /The API matches the declared repo/);
    assert.match(rendered, /No changes\. 2 live resources that are not declared are kept\./);
  }
});

describe('Markdown through the command line', () => {
  const fixture = useWorld();

  it('a policy made by hand is counted as kept in the dry run comment', async () => {
    const world = fixture.world;
    const dir = await fixture.repo({ 'policies/declared-one.native': 'main = rule { true }\n' });
    assert.equal((await world.cli('--reconcile', dir)).code, 0);
    const made = await world.call('POST', `/organizations/${ORG}/policies`, {
      body: { data: { type: 'policies', attributes: { name: 'by-hand', kind: 'native', 'enforcement-level': 'advisory' } } },
    });
    assert.equal(made.status, 200, JSON.stringify(made.json));
    const run = await world.cli('--dry-run', dir, ['--output', 'markdown']);
    assert.equal(run.code, 0, run.stderr);
    assert.ok(run.stdout.startsWith('<!-- policy-pool-sync plan source='));
    assert.doesNotMatch(run.stdout, /The API matches the declared repo/);
    assert.match(run.stdout, /1 live resource that is not declared is kept\./);
  });
});

describe('names from the API in Markdown', () => {
  it('a workspace named for a mention or a URL is shown, and neither notifies nor links', () => {
    const [source] = richPlans();
    const plan = source!.plan!;
    const changed = { ...plan.changes[0]!, evidence: {
      policies: ['p'], in_scope: 3, evaluated: 3, failing: ['@platform-team', 'https://evil.example/x'], passing: 1, not_evaluated: 0,
      window: '30 days', partial: false, blocking: ['@platform-team'],
    } };
    const md = renderMarkdown([{ ...source!, plan: { ...plan, changes: [changed, ...plan.changes.slice(1)] } }]);
    assert.match(md, /fails in 2 of 3 workspaces in scope \(@&#8203;platform-team, https:&#8203;\/\/evil\.example\/x\)/);
    assert.doesNotMatch(md, /@platform-team|https:\/\/evil/, 'no mention, no bare URL');
  });
});

describe('Markdown apply report', () => {
  it('the API\'s words in a failure are escaped as the plan\'s are: no tag of theirs reaches the comment', () => {
    const [source] = richPlans();
    const change = source!.plan!.changes[0]!;
    const message = 'version polsetver-AbC of policy set "lib" errored: <img src=x onerror=alert(1)></details><details open><summary>ok</summary> `code` | cell';
    const report = renderApplied({ sourcePlan: source!, results: [{ change, outcome: 'failed', message }] }, 'markdown');
    assert.ok(!/<img|<\/details>|<details|<summary>/.test(report), report);
    assert.match(report, /errored: &lt;img src=x onerror=alert\(1\)&gt;&lt;\/details&gt;&lt;details open&gt;&lt;summary&gt;ok&lt;\/summary&gt; \\`code\\` \\\| cell/);
    assert.ok(report.includes(`failed: `) && report.split('\n').filter((line) => line.startsWith('- ❌')).length === 1, 'one line per failure');
  });
});
