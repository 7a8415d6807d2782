/**
 * A policy set's parameters: plain `key: value`, and a sensitive value given only by reference (here an environment
 * variable), sent as sensitive, never printed, never in a saved plan, and noticed when it changes through the keyed
 * digest the set's marker records.
 */
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, it } from 'node:test';
import { readDeclared } from '../src/declared/index.js';
import { createRedactor } from '../src/redact.js';
import { ORG, WORKSPACES } from './helpers/emulator.js';
import { useWorld } from './helpers/world.js';

const SECRET_ENV = 'PPS_TEST_SET_SECRET';
const FIRST = 'first-Secret-value-9f3a';
const SECOND = 'second-Secret-value-41c7';

interface ParameterDoc { attributes: { key: string; value: string; sensitive: boolean; category: string } }

describe('policy set parameters', () => {
  const fixture = useWorld({ organizations: [{ name: ORG, maxAgentPools: 1, workspaces: WORKSPACES }] });

  it('sends plain and sensitive values, never shows the sensitive one, and notices when it changes', async () => {
    const { world } = fixture;
    // Given to the CLI as its environment only: the process's own environment never holds it.
    let given: Record<string, string> = { [SECRET_ENV]: FIRST };
    assert.equal(process.env[SECRET_ENV], undefined);
    const dir = await fixture.repo({
      'policy-sets/params.yaml': `parameters:\n  region: us-east-1\n  api_key: { env: ${SECRET_ENV} }\n`,
      'policies/p.native': 'main = rule { true }\n',
    });
    const saved = path.join(dir, '..', `${path.basename(dir)}-plan.json`);
    const outputs: string[] = [];
    for (const output of ['text', 'json', 'markdown']) {
      const plan = await world.cli('--dry-run', dir, ['--output', output, ...(output === 'json' ? ['--out', saved] : [])], 'debug', given);
      assert.equal(plan.code, 0, plan.stdout + plan.stderr);
      outputs.push(plan.stdout + plan.stderr);
    }
    assert.match(outputs[0]!, /"api_key \(sensitive\)", "region=us-east-1"/);
    const applied = await world.cli('--reconcile', dir, [], 'debug', given);
    assert.equal(applied.code, 0, applied.stdout + applied.stderr);
    outputs.push(applied.stdout + applied.stderr, await readFile(saved, 'utf8'));
    for (const text of outputs) assert.ok(!text.includes(FIRST), `the sensitive value appeared in:\n${text}`);

    const sets = (await world.call('GET', `/organizations/${ORG}/policy-sets`)).json as { data: Array<{ id: string; attributes: { name: string; description: string } }> };
    const set = sets.data.find((s) => s.attributes.name === 'params')!;
    assert.ok(!set.attributes.description.includes(FIRST));
    const parameters = ((await world.call('GET', `/policy-sets/${set.id}/parameters`)).json as { data: ParameterDoc[] }).data;
    const byKey = Object.fromEntries(parameters.map((p) => [p.attributes.key, p.attributes]));
    assert.deepEqual({ value: byKey['region']?.value, sensitive: byKey['region']?.sensitive }, { value: 'us-east-1', sensitive: false });
    assert.deepEqual({ value: byKey['api_key']?.value, sensitive: byKey['api_key']?.sensitive }, { value: '', sensitive: true });

    const same = await world.cli('--dry-run', dir, [], 'warn', given);
    assert.match(same.stdout, /No changes\. The API matches the declared repo\./, same.stdout);

    given = { [SECRET_ENV]: SECOND };
    const changed = await world.cli('--dry-run', dir, [], 'debug', given);
    assert.match(changed.stdout, /policy-set "params" will be updated in-place \(differs in parameters\)/);
    assert.match(changed.stdout, /"api_key \(sensitive, changed\)"/);
    assert.ok(!(changed.stdout + changed.stderr).includes(SECOND) && !(changed.stdout + changed.stderr).includes(FIRST));
    assert.equal((await world.cli('--reconcile', dir, [], 'warn', given)).code, 0);
    const settled = await world.cli('--dry-run', dir, [], 'warn', given);
    assert.match(settled.stdout, /No changes\. The API matches the declared repo\./, settled.stdout);
  });

  it('a sensitive value whose variable is not set is refused before any request; a file inside the repo too', async () => {
    const { world } = fixture;
    const dir = await fixture.repo({
      'policy-sets/missing.yaml': `parameters:\n  api_key: { env: ${SECRET_ENV} }\n`,
      'policy-sets/inside.yaml': 'parameters:\n  token: { file: PLACEHOLDER }\n',
      'secret.txt': 'in git\n',
    });
    const { writeFile } = await import('node:fs/promises');
    await writeFile(path.join(dir, 'policy-sets/inside.yaml'), `parameters:\n  token: { file: ${path.join(dir, 'secret.txt')} }\n`);
    await world.clearRequests();
    const run = await world.cli('--dry-run', dir);
    assert.equal(run.code, 1, run.stdout + run.stderr);
    assert.match(run.stdout, new RegExp(`policy-sets/missing\\.yaml: parameters\\.api_key: the environment variable ${SECRET_ENV} is not set`));
    assert.match(run.stdout, /policy-sets\/inside\.yaml: parameters\.token: .*secret\.txt is inside the repo; a sensitive value never lives in git/);
    assert.deepEqual(await world.requests(), []);
  });

  it('reading the repo teaches the redactor every sensitive value, so no log line or error can carry it', async () => {
    const value = 'learned-Secret-value-7e21';
    const redact = createRedactor([]);
    assert.equal(redact(`a ${value} b`), `a ${value} b`, 'not known before the repo is read');
    await readDeclared(await fixture.repo({ 'policy-sets/learn.yaml': `parameters:\n  api_key: { env: ${SECRET_ENV} }\n` }), { env: { [SECRET_ENV]: value } });
    assert.equal(redact(`a ${value} b "${encodeURIComponent(value)}"`), 'a *** b "***"');
  });
});
