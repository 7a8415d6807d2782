/**
 * A policy set's parameters: plain `key: value`, and a sensitive value given only by reference (here an environment
 * variable the operator allows with --parameter-env), sent as sensitive (the value the emulator stored is the value
 * read; it never answers one), never printed, never in a saved plan, and noticed when it changes through the digest
 * keyed with the API token that the set's marker records.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, it } from 'node:test';
import { readDeclared } from '../src/declared/index.js';
import { createRedactor } from '../src/redact.js';
import { ORG, WORKSPACES } from './helpers/emulator.js';
import { useWorld, World } from './helpers/world.js';

const SECRET_ENV = 'PPS_TEST_SET_SECRET';
const FIRST = 'first-Secret-value-9f3a';
const SECOND = 'second-Secret-value-41c7';
/** The operator's allowance of the variable, as every run below gives it. */
const ALLOW = ['--parameter-env', SECRET_ENV];
const MARKER_DIGEST = / sensitive=([0-9a-f]{64}) -->/;

/** What the emulator stored of set `name`'s parameters (its state, as the service holds it), by key. */
async function storedParameters(world: World, name: string): Promise<Record<string, { value: string; sensitive: boolean }>> {
  const set = (await world.organization())['policy-sets'].find((s) => s.name === name)!;
  return Object.fromEntries(set.parameters.map((p) => [p.key, { value: p.value, sensitive: p.sensitive }]));
}

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
    const saved = path.join(await fixture.repo(), 'plan.json');
    const outputs: string[] = [];
    for (const output of ['text', 'json', 'markdown']) {
      const plan = await world.cli('--dry-run', dir, [...ALLOW, '--output', output, ...(output === 'json' ? ['--out', saved] : [])], 'debug', given);
      assert.equal(plan.code, 0, plan.stdout + plan.stderr);
      outputs.push(plan.stdout + plan.stderr);
    }
    assert.match(outputs[0]!, /"api_key \(sensitive\)", "region=us-east-1"/);
    const applied = await world.cli('--reconcile', dir, ALLOW, 'debug', given);
    assert.equal(applied.code, 0, applied.stdout + applied.stderr);
    outputs.push(applied.stdout + applied.stderr, await readFile(saved, 'utf8'));
    for (const text of outputs) assert.ok(!text.includes(FIRST), `the sensitive value appeared in:\n${text}`);

    const sets = (await world.call('GET', `/organizations/${ORG}/policy-sets`)).json as { data: Array<{ id: string; attributes: { name: string; description: string } }> };
    const set = sets.data.find((s) => s.attributes.name === 'params')!;
    assert.ok(!set.attributes.description.includes(FIRST));
    const parameters = ((await world.call('GET', `/policy-sets/${set.id}/parameters`)).json as { data: ParameterDoc[] }).data;
    const byKey = Object.fromEntries(parameters.map((p) => [p.attributes.key, p.attributes]));
    assert.deepEqual({ value: byKey['region']?.value, sensitive: byKey['region']?.sensitive }, { value: 'us-east-1', sensitive: false });
    assert.deepEqual({ value: byKey['api_key']?.value, sensitive: byKey['api_key']?.sensitive }, { value: '', sensitive: true }, 'the API never answers a sensitive value');
    assert.deepEqual((await storedParameters(world, 'params'))['api_key'], { value: FIRST, sensitive: true }, 'the value sent is the value read');

    const same = await world.cli('--dry-run', dir, ALLOW, 'warn', given);
    assert.match(same.stdout, /No changes\. The API matches the declared repo\./, same.stdout);

    given = { [SECRET_ENV]: SECOND };
    const changed = await world.cli('--dry-run', dir, ALLOW, 'debug', given);
    assert.match(changed.stdout, /policy-set "params" will be updated in-place \(differs in parameters\)/);
    assert.match(changed.stdout, /"api_key \(sensitive, changed\)"/);
    assert.ok(!(changed.stdout + changed.stderr).includes(SECOND) && !(changed.stdout + changed.stderr).includes(FIRST));
    assert.equal((await world.cli('--reconcile', dir, ALLOW, 'warn', given)).code, 0);
    assert.deepEqual((await storedParameters(world, 'params'))['api_key'], { value: SECOND, sensitive: true }, 'the changed value sent is the value read');
    const settled = await world.cli('--dry-run', dir, ALLOW, 'warn', given);
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
    const run = await world.cli('--dry-run', dir, [...ALLOW, '--parameter-files', dir]);
    assert.equal(run.code, 1, run.stdout + run.stderr);
    assert.match(run.stdout, new RegExp(`policy-sets/missing\\.yaml:2: parameters\\.api_key: the environment variable ${SECRET_ENV} is not set`));
    assert.match(run.stdout, /policy-sets\/inside\.yaml:2: parameters\.token: its file is inside the repo; a sensitive value never lives in git/);
    assert.deepEqual(await world.requests(), []);
  });

  it("reading the repo teaches the API client's redactor every sensitive value, and only it", async () => {
    const value = 'learned-Secret-value-7e21';
    const api = createRedactor([], { learned: true });
    const elsewhere = createRedactor([]);
    assert.equal(api(`a ${value} b`), `a ${value} b`, 'not known before the repo is read');
    const parameters = { env: [SECRET_ENV], files: null, reserved: { env: [], files: [] } };
    await readDeclared(await fixture.repo({ 'policy-sets/learn.yaml': `parameters:\n  api_key: { env: ${SECRET_ENV} }\n` }), { env: { [SECRET_ENV]: value }, parameters });
    assert.equal(api(`a ${value} b "${encodeURIComponent(value)}"`), 'a *** b "***"');
    assert.equal(elsewhere(`a ${value} b`), `a ${value} b`, 'the plan, logs and /status are not redacted of what the repo chose');
  });

  it('the digest the marker records is keyed with the API token: another token gives another, and it is no plain hash', async () => {
    const dir = await fixture.repo({ 'policy-sets/keyed.yaml': `parameters:\n  api_key: { env: ${SECRET_ENV} }\n` });
    const given = { [SECRET_ENV]: FIRST };
    const digests: string[] = [];
    const other = await World.start({ organizations: [{ name: ORG, maxAgentPools: 1, workspaces: WORKSPACES }], token: 'another-Api-token-0123456789' });
    try {
      for (const world of [fixture.world, other]) {
        const applied = await world.cli('--reconcile', dir, ALLOW, 'warn', given);
        assert.equal(applied.code, 0, applied.stdout + applied.stderr);
        const set = (await world.organization())['policy-sets'].find((s) => s.name === 'keyed');
        digests.push(MARKER_DIGEST.exec(String(set?.['description']))?.[1] ?? '');
      }
    } finally {
      await other.close();
    }
    assert.match(digests[0]!, /^[0-9a-f]{64}$/);
    assert.notEqual(digests[0], digests[1], 'the same value under another token has another digest');
    const unkeyed = [FIRST, JSON.stringify(['keyed', [['api_key', FIRST]]])].map((text) => createHash('sha256').update(text).digest('hex'));
    assert.ok(!unkeyed.includes(digests[0]!), 'the digest is not a plain hash anyone could check a guess against');
  });
});
