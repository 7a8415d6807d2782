/**
 * A saved plan keeps where each rollout stands, and `--show` prints it: the Rollouts section, the held raise's words
 * and the warning of a lowered live level, as the dry run that saved it printed them.
 */
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { markerRollout } from '../src/plan/marker.js';
import { spawnCli } from './helpers/cli.js';
import { ORG } from './helpers/emulator.js';
import { EVIDENCE_WORKSPACES, s3Repo } from './helpers/evidence.js';
import { publishedSchema } from './helpers/published-schema.js';
import { useWorld } from './helpers/world.js';

describe('a saved plan\'s rollouts', () => {
  const fixture = useWorld({ organizations: [{ name: ORG, maxAgentPools: 1, workspaces: EVIDENCE_WORKSPACES }] });

  it('--show prints the Rollouts section in text and Markdown, and the saved JSON carries them', async () => {
    const { world } = fixture;
    assert.equal((await world.cli('--reconcile', await fixture.repo(s3Repo('soft-mandatory')))).code, 0);
    const run = await world.control('POST', '/runs', { workspace: 'ws-AppProd000001', outcomes: { 's3-encryption': 'failed' } });
    assert.equal(run.status, 200, run.text);
    const dir = await fixture.repo(s3Repo('hard-mandatory', 'rollout: { start: advisory, clean-runs: 2 }\n'));
    const file = join(await fixture.repo({}), 'plan.json');
    const made = await world.cli('--dry-run', dir, ['--out', file]);
    assert.equal(made.code, 0, made.stderr);
    const rolloutLine = 'policy "s3-encryption": rollout starts: held at advisory until 2 clean runs, at most 0 failing workspaces; then hard-mandatory';
    assert.ok(made.stdout.includes(`Rollouts:\n  - ${rolloutLine}\n`), made.stdout);

    const saved = JSON.parse(await readFile(file, 'utf8')) as { sources: Array<{ rollouts?: Array<{ policy: string; state: string }>; warnings: string[] }> };
    const validate = publishedSchema('plan');
    assert.ok(validate(saved), JSON.stringify(validate.errors));
    assert.deepEqual(saved.sources[0]!.rollouts?.map((r) => [r.policy, r.state]), [['s3-encryption', 'starting']]);
    assert.match(saved.sources[0]!.warnings.join('\n'), /its rollout lowers the live level soft-mandatory to advisory/);

    const text = await spawnCli(['--show', file]);
    assert.equal(text.code, 0, text.stderr);
    assert.ok(text.stdout.includes(`Rollouts:\n  - ${rolloutLine}\n`), text.stdout);
    assert.match(text.stdout, /# held at advisory by its rollout; promotion to hard-mandatory would block runs in app-prod\n/);
    assert.equal(text.stdout.match(/its rollout lowers the live level/g)?.length, 1, 'the warning once');
    const markdown = await spawnCli(['--show', file, '--output', 'markdown']);
    assert.match(markdown.stdout, /#### Rollouts \(1\)\n\n- policy "s3-encryption": rollout starts: held at advisory/);
    assert.match(markdown.stdout, /⏸ held at advisory; promotion to hard-mandatory would block app-prod/);

    // The rollout begins when the saved plan is applied: its start time is the applying run's, not a reason to refuse it.
    const applied = await world.cli('--reconcile', dir, ['--plan', file]);
    assert.equal(applied.code, 0, applied.stdout + applied.stderr);
    assert.match(applied.stdout, /Apply complete! Resources: 0 created, 1 updated/);
    const policy = (await world.policies()).find((p) => p.name === 's3-encryption')!;
    assert.equal(policy['enforcement-level'], 'advisory');
    assert.equal(markerRollout(policy.description as string)?.state, 'held');
  });
});
