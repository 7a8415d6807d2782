/** A Markdown plan that can be dated and placed: its commit, time and run, its deletions first, and where its details end. */
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { renderMarkdown } from '../src/output/index.js';
import { withMarker } from '../src/plan/marker.js';
import { planChanges } from '../src/plan/plan.js';
import type { SourcePlan } from '../src/plan/types.js';
import { gitRepo } from './helpers/git-repo.js';
import { richPlans } from './helpers/output-plans.js';
import { declaredPolicy, defaultOptions, livePolicy } from './helpers/plan-fixtures.js';
import { useWorld } from './helpers/world.js';

function updates(count: number): SourcePlan {
  const code = (tag: string) => Array.from({ length: 100 }, (_, i) => `rule_${i} = rule { "${tag}-${i}" is "${tag}" }`).join('\n');
  const names = Array.from({ length: count }, (_, i) => `policy-${String(i).padStart(4, '0')}`);
  const plan = planChanges(
    { policies: names.map((name) => declaredPolicy({ name, code: code('new'), description: 'd' })), pools: [] },
    { policies: names.map((name) => livePolicy({ name, code: code('old'), description: withMarker('d', 'main') })), pools: [] },
    defaultOptions({ source: 'main' }),
  );
  return { name: 'main', organization: 'org', revision: null, plan };
}

describe('the Markdown plan', () => {
  it('says where the details end and the one-line entries begin', () => {
    const md = renderMarkdown([updates(400)]);
    const note = /^- _\(details of the first (\d+) changes; all 400 in the JSON plan\)_\n- \*\*~ update\*\* policy `policy-(\d+)`/m.exec(md);
    assert.ok(note, md.slice(0, 2000));
    assert.equal(Number(note[2]), Number(note[1]), 'the note stands before the first change without details');
    assert.equal(md.split('\n').filter((l) => l.startsWith('- <details>')).length, Number(note[1]));
    assert.doesNotMatch(renderMarkdown([updates(3)]), /details of the first/, 'no note when every change has its details');
  });

  it('calls out deletions at the top', () => {
    const md = renderMarkdown(richPlans());
    const head = md.slice(0, md.indexOf('| Source |'));
    assert.match(head, /^\*\*⚠ 3 deletions\*\*$/m);
    assert.doesNotMatch(renderMarkdown([updates(2)]), /⚠ \d+ deletion/);
  });
});

describe('a Markdown plan from the command line', () => {
  const fixture = useWorld();

  it('gives the commit of a --source-dir in a git work tree (-dirty when changed), the time, and the run under GitHub Actions', async (t) => {
    const { world } = fixture;
    const repo = await gitRepo(t);
    const sha = await repo.commit({ 'policies/dated.native': 'main = rule { true }\n' });
    const env = { GITHUB_ACTIONS: 'true', GITHUB_SERVER_URL: 'https://github.example', GITHUB_REPOSITORY: 'acme/policies', GITHUB_RUN_ID: '4242' };
    const clean = await world.cli('--dry-run', repo.dir, ['--output', 'markdown'], 'warn', env);
    assert.equal(clean.code, 0, clean.stderr);
    assert.match(clean.stdout, new RegExp(`Organization \`example-org\`, revision \`${sha}\`\\.`));
    assert.match(clean.stdout, /^Planned at \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ · \[workflow run\]\(https:\/\/github\.example\/acme\/policies\/actions\/runs\/4242\)\.$/m);

    await writeFile(join(repo.dir, 'policies/dated.native'), 'main = rule { false }\n');
    const dirty = await world.cli('--dry-run', repo.dir, ['--output', 'markdown'], 'warn', {});
    assert.match(dirty.stdout, new RegExp(`revision \`${sha}-dirty\``));
    assert.match(dirty.stdout, /^Planned at \S+Z\.$/m, 'no run link outside GitHub Actions');
  });
});
