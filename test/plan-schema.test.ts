/** schemas/plan.schema.json describes every JSON plan the tool writes: the goldens, dry runs, applies and saved plans. */
import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import type { ValidateFunction } from 'ajv/dist/2020.js';
import { renderJson, renderSavedPlan } from '../src/output/index.js';
import { neverPingedPlans, SAVED_RUN } from './helpers/output-plans.js';
import { publishedSchema } from './helpers/published-schema.js';
import { useWorld } from './helpers/world.js';
import { REPO_ROOT } from './helpers/repo-root.js';

const ROOT = REPO_ROOT;
let validate: ValidateFunction;

before(async () => {
  validate = publishedSchema('plan');
});

function assertPlan(document: unknown, what: string): void {
  assert.ok(validate(document), `${what}: ${JSON.stringify(validate.errors, null, 2)}`);
}

/** Every JSON file under `dir` (recursively) whose content is a plan. */
async function planFiles(dir: string): Promise<string[]> {
  const found: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile() || !entry.name.endsWith('.json')) continue;
    const file = join(entry.parentPath, entry.name);
    if ((await readFile(file, 'utf8')).includes('"format_version"')) found.push(file);
  }
  return found;
}

describe('the plan schema', () => {
  it('holds every golden and fixture JSON plan', async () => {
    const files = [...(await planFiles(join(ROOT, 'test/golden'))), ...(await planFiles(join(ROOT, 'test/fixtures')))];
    assert.ok(files.some((f) => f.endsWith('rich.json')) && files.some((f) => f.endsWith('empty.json')), files.join('\n'));
    for (const file of files) assertPlan(JSON.parse(await readFile(file, 'utf8')), file);
  });

  it('holds a plan and a saved plan deleting an agent that never pinged (a null last ping)', () => {
    assertPlan(JSON.parse(renderJson(neverPingedPlans())), 'JSON plan');
    const saved = JSON.parse(renderSavedPlan(neverPingedPlans(), SAVED_RUN)) as { sources: { changes: { live: unknown }[] }[] };
    assertPlan(saved, 'saved plan');
    assert.deepEqual(saved.sources[0]?.changes[0]?.live, { id: 'agent-Nev123', status: 'exited', lastPingAt: null });
  });

  it('refuses what is not a plan: a missing summary, an unknown key, an unknown action, a code field carried whole', async () => {
    const rich = JSON.parse(await readFile(join(ROOT, 'test/golden/rich.json'), 'utf8')) as Record<string, any>;
    const { summary: _, ...noSummary } = rich;
    const change = rich['sources'][0].changes[0];
    const broken = [
      noSummary,
      { ...rich, extra: 1 },
      { ...rich, sources: [{ ...rich['sources'][0], changes: [{ ...change, action: 'upsert' }] }] },
      { ...rich, sources: [{ ...rich['sources'][0], changes: [{ ...change, fields: { code: { before: null, after: 'main = rule { true }' } } }] }] },
    ];
    for (const document of broken) assert.equal(validate(document), false, JSON.stringify(document).slice(0, 200));
  });

  describe('the plans of real runs', () => {
    const fixture = useWorld();
    const files = {
      'policies/a.native': 'main = rule { true }\n',
      'policies/b.rego': 'package b\n\ndeny contains "x" if { false }\n',
      'policies/b.yaml': 'query: data.b.deny\ndescription: B\n',
      'agent-pools/build.yaml': 'organization-scoped: false\n',
    };

    it('a dry run, a saved plan, and an apply with an applied and a failed change', async () => {
      const { world } = fixture;
      const dir = await fixture.repo(files);
      const dry = await world.cli('--dry-run', dir, ['--output', 'json', '--source', 'schema']);
      assertPlan(JSON.parse(dry.stdout), 'dry run');

      const saved = join(await fixture.repo({}), 'plan.json');
      const out = await world.cli('--dry-run', dir, ['--out', saved, '--source', 'schema']);
      assert.equal(out.code, 0, out.stderr);
      const savedPlan = JSON.parse(await readFile(saved, 'utf8')) as { saved_plan_version?: string };
      assert.equal(savedPlan.saved_plan_version, '2');
      assertPlan(savedPlan, 'saved plan');

      // The pool's create is refused: one change fails, the others apply.
      await world.addFaults({ kind: 'status', method: 'POST', path: '/agent-pools$', status: 422, count: 0 });
      try {
        const applied = await world.cli('--reconcile', dir, ['--output', 'json', '--source', 'schema']);
        const document = JSON.parse(applied.stdout) as { result: Record<string, number> };
        assertPlan(document, 'apply');
        assert.equal(document.result['failed'], 1);
        assert.ok((document.result['applied'] ?? 0) >= 2);
      } finally {
        await world.clearFaults();
      }
    });
  });
});
