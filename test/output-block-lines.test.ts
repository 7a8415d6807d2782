/**
 * What a reviewer reads of a change that blocks runs, against the emulator's runs: the Markdown plan says whom it
 * blocks in the change's visible line and counts the blocks at its top; a raise held by its rollout says the level it
 * holds now and whom promotion would block, never a bare "would block"; a rollout that lowers a live level warns of it
 * in text, Markdown and JSON.
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { ORG } from './helpers/emulator.js';
import { publishedSchema } from './helpers/published-schema.js';
import { EVIDENCE_WORKSPACES, s3Repo } from './helpers/evidence.js';
import { useWorld } from './helpers/world.js';

/** The Markdown a reader sees with every `<details>` closed: each summary line, nothing of what it folds. */
function visible(markdown: string): string {
  return markdown.replace(/<\/summary>[\s\S]*?<\/details>/g, '</summary>');
}

describe('the lines of a change that blocks runs', () => {
  const fixture = useWorld({ organizations: [{ name: ORG, maxAgentPools: 1, workspaces: EVIDENCE_WORKSPACES }] });

  before(async () => {
    const { world } = fixture;
    const created = await world.cli('--reconcile', await fixture.repo(s3Repo('soft-mandatory')));
    assert.equal(created.code, 0, created.stdout + created.stderr);
    for (const [workspace, outcome] of [['ws-AppProd000001', 'failed'], ['ws-DataProd00001', 'failed'], ['ws-WebDev0000001', 'passed']]) {
      const run = await world.control('POST', '/runs', { workspace, outcomes: { 's3-encryption': outcome } });
      assert.equal(run.status, 200, run.text);
    }
  });

  it('Markdown: whom a change blocks is in its visible line, and the top counts the changes that block and the workspaces', async () => {
    const markdown = await fixture.world.cli('--dry-run', await fixture.repo(s3Repo('hard-mandatory')), ['--output', 'markdown']);
    assert.equal(markdown.code, 0, markdown.stderr);
    const shown = visible(markdown.stdout);
    assert.match(shown, /policy `s3-encryption`.*: differs in enforcement-level \*\*⛔ blocks app-prod, data-prod\*\*|<summary>.*s3-encryption.*differs in enforcement-level <b>⛔ blocks app-prod, data-prod<\/b><\/summary>/);
    const top = markdown.stdout.slice(0, markdown.stdout.indexOf('| Source |'));
    assert.match(top, /\*\*⛔ 1 change blocks runs in 2 workspaces: app-prod, data-prod\*\*/);
  });

  it('a raise held by its rollout says the level it holds and whom promotion would block; the loosened live level is a warning everywhere', async () => {
    const { world } = fixture;
    const dir = await fixture.repo(s3Repo('hard-mandatory', 'rollout: { start: advisory, clean-runs: 2 }\n'));
    const warning = 'policy "s3-encryption": its rollout lowers the live level soft-mandatory to advisory until it is promoted to hard-mandatory; enforcement loosens meanwhile';

    const text = await world.cli('--dry-run', dir);
    assert.equal(text.code, 0, text.stderr);
    assert.match(text.stdout, /~ enforcement-level = "soft-mandatory" -> "advisory"/);
    assert.match(text.stdout, /\n {8}# held at advisory by its rollout; promotion to hard-mandatory would block runs in app-prod, data-prod\n/);
    assert.doesNotMatch(text.stdout.replace(/promotion (to hard-mandatory )?would block/g, ''), /would block/);
    assert.ok(text.stdout.includes(`Warnings:\n  - ${warning}\n`), text.stdout);

    const markdown = await world.cli('--dry-run', dir, ['--output', 'markdown']);
    const shown = visible(markdown.stdout);
    assert.match(shown, /⏸ held at advisory; promotion to hard-mandatory would block app-prod, data-prod/);
    assert.doesNotMatch(shown, /⛔/);
    assert.doesNotMatch(markdown.stdout.replace(/promotion (to hard-mandatory )?would block/g, ''), /would block/);
    assert.match(markdown.stdout.slice(0, markdown.stdout.indexOf('| Source |')), /\*\*⏸ 1 change held by its rollout: promotion would block runs in 2 workspaces: app-prod, data-prod\*\*/);
    assert.ok(markdown.stdout.includes(warning), markdown.stdout);

    const json = await world.cli('--dry-run', dir, ['--output', 'json']);
    const document = JSON.parse(json.stdout) as { sources: Array<{ warnings: string[]; changes: Array<{ name: string; evidence?: Record<string, unknown> }> }> };
    const validate = publishedSchema('plan');
    assert.ok(validate(document), JSON.stringify(validate.errors));
    const evidence = document.sources[0]!.changes.find((c) => c.name === 's3-encryption')!.evidence!;
    assert.equal(evidence['held_at'], 'advisory');
    assert.deepEqual(evidence['blocking'], ['app-prod', 'data-prod']);
    assert.ok(document.sources[0]!.warnings.includes(warning), JSON.stringify(document.sources[0]!.warnings));
  });
});
