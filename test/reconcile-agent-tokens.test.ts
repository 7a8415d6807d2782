/** Agent tokens declared in a pool file: made and delivered to the token folder, rotated with overlap, pruned; their texts nowhere else. */
import assert from 'node:assert/strict';
import { mkdir, readFile, readdir, stat, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { ORG, WORKSPACES } from './helpers/emulator.js';
import { useWorld } from './helpers/world.js';
import { runCli, type CliRun } from './helpers/cli.js';

interface TokenState {
  id: string;
  description: string;
  token: string;
  'created-at': string;
  'last-used-at': string | null;
}

const LONG_AGO = '2026-01-01T00:00:00.000Z';

describe('agent tokens in the pool file', () => {
  const fixture = useWorld({ organizations: [{ name: ORG, maxAgentPools: 1, workspaces: WORKSPACES, agentPools: [{ name: 'build' }] }] });

  async function pool(): Promise<{ id: string; tokens: TokenState[] }> {
    const state = (await fixture.world.control('GET', '/state')).json as { organizations: Array<{ name: string; 'agent-pools': Array<{ id: string; tokens: TokenState[] }> }> };
    const found = state.organizations.find((o) => o.name === ORG)?.['agent-pools'][0];
    assert.ok(found);
    return found;
  }
  async function clearTokens(): Promise<void> {
    for (const token of (await pool()).tokens) await fixture.world.call('DELETE', `/authentication-tokens/${token.id}`);
  }
  async function makeToken(description: string): Promise<string> {
    const made = await fixture.world.call('POST', `/agent-pools/${(await pool()).id}/authentication-tokens`, { body: { data: { type: 'agent-tokens', attributes: { description } } } });
    assert.equal(made.status, 201);
    return (made.json as { data: { id: string } }).data.id;
  }
  /** Every text the runs printed, every file of the repo and the saved plan: none may hold a token's text. */
  async function assertNoText(texts: readonly string[], outputs: Array<CliRun | string>): Promise<void> {
    const seen = outputs.map((o) => (typeof o === 'string' ? o : `${o.stdout}${o.stderr}`)).join('\n');
    for (const text of texts) assert.ok(!seen.includes(text), 'a token text appeared in the output');
  }
  async function treeText(dir: string): Promise<string> {
    const out: string[] = [];
    for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
      if (entry.isFile()) out.push(await readFile(join(entry.parentPath, entry.name), 'utf8'));
    }
    return out.join('\n');
  }

  it('makes a declared token once, delivers its text with mode 0600, and shows it nowhere; a second pass makes nothing', async () => {
    await clearTokens();
    const world = fixture.world;
    const tokens = await fixture.repo();
    const dir = await fixture.repo({ 'agent-pools/build.yaml': 'tokens:\n  - description: k8s-prod\n    deliver-to: { file: build-prod }\n' });
    const planFile = join(await fixture.repo(), 'plan.json');
    const dry = await world.cli('--dry-run', dir, ['--token-dir', tokens, '--out', planFile]);
    assert.equal(dry.code, 0, dry.stderr);
    assert.match(dry.stdout, /\+ resource "agent-token" "build\/k8s-prod"/);
    // The saved plan is what is applied: its token change is the fresh plan's, and the folder is this run's own.
    const applied = await world.cli('--reconcile', dir, ['--token-dir', tokens, '--plan', planFile, '--output', 'json'], 'debug');
    assert.equal(applied.code, 0, applied.stderr);
    const live = (await pool()).tokens;
    assert.deepEqual(live.map((t) => t.description), ['k8s-prod']);
    const file = join(tokens, 'build-prod');
    assert.equal(await readFile(file, 'utf8'), `${live[0]!.token}\n`, 'the text is delivered whole');
    assert.equal((await stat(file)).mode & 0o777, 0o600);
    assert.deepEqual(await readdir(tokens), ['build-prod'], 'no temporary file is left');

    await world.clearRequests();
    const again = await world.cli('--dry-run', dir, ['--token-dir', tokens, '--detailed-exitcode'], 'debug');
    assert.equal(again.code, 0, again.stdout + again.stderr);
    assert.match(again.stdout, /token "k8s-prod" \(at-[A-Za-z0-9]+\): 0s old, never used/);
    const requests = (await world.requests()).map((r) => `${r.method} ${r.path.replace(/apool-\w+/, 'apool-ID').split('?')[0]}`);
    assert.equal(requests.filter((r) => r.includes('authentication-tokens')).length, 1, `one token list for the one pool: ${requests.join(', ')}`);
    assert.ok(requests.every((r) => r.startsWith('GET ')), requests.join(', '));
    const markdown = await world.cli('--dry-run', dir, ['--token-dir', tokens, '--output', 'markdown']);
    assert.match(markdown.stdout, /#### Agent tokens \(1\)\n\n- agent pool "build" token "k8s-prod" \(at-[A-Za-z0-9]+\): 0s old, never used/);
    await assertNoText(live.map((t) => t.token), [dry, applied, again, markdown, await readFile(planFile, 'utf8'), await treeText(dir)]);
  });

  it('refuses a deliver-to without --token-dir, or leading out of it, in --validate and --dry-run, naming the file, before any request', async () => {
    const world = fixture.world;
    const tokens = await fixture.repo({ 'inside/.keep': '' });
    const outside = await fixture.repo();
    await symlink(outside, join(tokens, 'out'));
    const cases: Array<[string, string[], RegExp]> = [
      ['build-prod', [], /no folder is allowed for token files/],
      ['../build-prod', ['--token-dir', tokens], /leads out of the token folder: give a name relative to it, without \. or \.\. segments/],
      ['out/build-prod', ['--token-dir', tokens], /leads out of the token folder through a link/],
    ];
    for (const [file, flags, message] of cases) {
      const dir = await fixture.repo({ 'agent-pools/build.yaml': `tokens:\n  - description: k8s-prod\n    deliver-to: { file: "${file}" }\n` });
      await world.clearRequests();
      for (const mode of ['--validate', '--dry-run']) {
        const run = await world.cli(mode, dir, flags);
        assert.equal(run.code, 1, `${mode} ${file}: ${run.stdout}`);
        assert.match(run.stdout + run.stderr, /agent-pools\/build\.yaml:3/, `${mode} names the file and line`);
        assert.match(run.stdout + run.stderr, message);
      }
      assert.deepEqual(await world.requests(), [], `no request for ${file}`);
    }
    assert.deepEqual(await readdir(outside), []);
  });

  it('rotates an aged token with overlap: a successor is delivered, and the old one goes only after the successor is used', async () => {
    await clearTokens();
    const world = fixture.world;
    const tokens = await fixture.repo();
    const dir = await fixture.repo({ 'agent-pools/build.yaml': 'tokens:\n  - description: k8s-prod\n    deliver-to: { file: build-prod }\n    rotate-after: 30d\n' });
    assert.equal((await world.cli('--reconcile', dir, ['--token-dir', tokens])).code, 0);
    const [first] = (await pool()).tokens;
    assert.ok(first);
    assert.equal((await world.control('PATCH', `/authentication-tokens/${first.id}`, { 'created-at': LONG_AGO, used: true })).status, 200);

    const due = await world.cli('--dry-run', dir, ['--token-dir', tokens]);
    assert.match(due.stdout, new RegExp(`rotation: ${first.id} is \\d+d old, older than rotate-after 30d`));
    const rotated = await world.cli('--reconcile', dir, ['--token-dir', tokens]);
    assert.equal(rotated.code, 0, rotated.stderr);
    const both = (await pool()).tokens;
    assert.equal(both.length, 2, 'the old token stays beside its successor');
    const successor = both.find((t) => t.id !== first.id)!;
    assert.equal(await readFile(join(tokens, 'build-prod'), 'utf8'), `${successor.token}\n`, 'the successor is delivered');

    const between = await world.cli('--dry-run', dir, ['--token-dir', tokens, '--detailed-exitcode']);
    assert.equal(between.code, 0, 'nothing to do while the successor is unused');
    assert.match(between.stdout, new RegExp(`\\(${first.id}\\): \\d+d old, last used [^;]+; rotation under way: kept until its successor ${successor.id} is used`));
    assert.match(between.stdout, new RegExp(`\\(${successor.id}\\): 0s old, never used; successor of ${first.id}, not used yet`));
    assert.equal((await world.control('PATCH', `/authentication-tokens/${successor.id}`, { used: true })).status, 200);
    const done = await world.cli('--reconcile', dir, ['--token-dir', tokens]);
    assert.equal(done.code, 0, done.stderr);
    assert.match(done.stdout, new RegExp(`- resource "agent-token" "build/k8s-prod" \\{\\n +id += "${first.id}"`));
    assert.deepEqual((await pool()).tokens.map((t) => t.id), [successor.id]);
    await assertNoText([first.token, successor.token], [due, rotated, between, done]);
  });

  it('keeps an undeclared token with a warning, and deletes it with --prune --source', async () => {
    await clearTokens();
    const world = fixture.world;
    const stray = await makeToken('made-by-hand');
    const dir = await fixture.repo({ 'agent-pools/build.yaml': 'tokens: []\n' });
    const kept = await world.cli('--reconcile', dir);
    assert.equal(kept.code, 0, kept.stderr);
    assert.match(kept.stdout + kept.stderr, new RegExp(`token "made-by-hand" \\(${stray}\\) is not declared and is kept because prune is off`));
    assert.deepEqual((await pool()).tokens.map((t) => t.id), [stray]);
    const pruned = await world.cli('--reconcile', dir, ['--prune', '--source', 'tokens-test']);
    assert.equal(pruned.code, 0, pruned.stderr);
    assert.deepEqual((await pool()).tokens, []);
  });

  it('leaves the tokens of a pool without tokens: alone, reading none', async () => {
    await clearTokens();
    const world = fixture.world;
    const stray = await makeToken('made-by-hand');
    const dir = await fixture.repo({ 'agent-pools/build.yaml': 'organization-scoped: true\n' });
    await world.clearRequests();
    const run = await world.cli('--reconcile', dir, ['--prune', '--source', 'tokens-test']);
    assert.equal(run.code, 0, run.stderr);
    assert.deepEqual((await pool()).tokens.map((t) => t.id), [stray]);
    assert.ok((await world.requests()).every((r) => !r.path.includes('authentication-tokens')));
  });

  it('deletes a token it made but could not deliver, and says so', async () => {
    await clearTokens();
    const world = fixture.world;
    const tokens = await fixture.repo();
    await mkdir(join(tokens, 'build-prod'));
    const dir = await fixture.repo({ 'agent-pools/build.yaml': 'tokens:\n  - description: k8s-prod\n    deliver-to: { file: build-prod }\n' });
    const run = await world.cli('--reconcile', dir, ['--token-dir', tokens]);
    assert.equal(run.code, 1);
    assert.match(run.stdout + run.stderr, /was made but could not be delivered to "build-prod" \([^)]*\); it was deleted again/);
    assert.deepEqual((await pool()).tokens, [], 'no token is left that nobody holds');
    assert.deepEqual((await readdir(tokens)).sort(), ['build-prod']);
  });

  it('--export writes a pool\'s token descriptions, never a text', async () => {
    await clearTokens();
    const world = fixture.world;
    await makeToken('k8s-prod');
    const out = join(await fixture.repo(), 'export');
    const run = await runCli(['--export', out, '--organization', ORG, '--api-url', world.url], { env: { API_TOKEN: world.token, LOG_LEVEL: 'warn' } });
    assert.equal(run.code, 0, run.stderr);
    const file = await readFile(join(out, 'agent-pools', 'build.yaml'), 'utf8');
    assert.match(file, /tokens:\n {2}- description: k8s-prod\n/);
    await assertNoText((await pool()).tokens.map((t) => t.token), [file, run]);
    const round = await world.cli('--dry-run', out, ['--detailed-exitcode']);
    assert.equal(round.code, 0, round.stdout + round.stderr);
  });
});
