import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { runCli } from './helpers/cli.js';
import { ORG, POLICY_SET, WORKSPACES, policyBody } from './helpers/emulator.js';
import { REPO_ROOT } from './helpers/repo-root.js';
import { CORPUS } from './helpers/repos.js';
import { World, useWorld } from './helpers/world.js';

/** Every file under `dir`, relative path to bytes. */
async function treeOf(dir: string): Promise<Map<string, Buffer>> {
  const files = new Map<string, Buffer>();
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const abs = path.join(entry.parentPath, entry.name);
    files.set(path.relative(dir, abs).split(path.sep).join('/'), await readFile(abs));
  }
  return files;
}

function exportCli(world: World, dir: string, extra: string[] = []) {
  return runCli(['--export', dir, '--organization', ORG, '--api-url', world.url, ...extra], { env: { API_TOKEN: world.token, LOG_LEVEL: 'warn' } });
}

describe('--export', () => {
  let world: World;
  let scratch: string;
  before(async () => {
    world = await World.start();
    scratch = await mkdtemp(path.join(tmpdir(), 'pps-export-'));
  });
  after(async () => {
    await world.close();
    await rm(scratch, { recursive: true, force: true });
  });

  for (const corpus of ['sentinel-examples', 'avm-rego']) {
    it(`round-trips the ${corpus} corpus exactly: same code bytes, a dry run finds nothing but the adoption of the hand-made set, a second export is identical`, async () => {
      const source = path.join(CORPUS, corpus);
      const applied = await world.cli('--reconcile', source, ['--prune', '--source', 'default', '--force']);
      assert.equal(applied.code, 0, applied.stderr + applied.stdout);
      await world.clearRequests();
      const first = path.join(scratch, `${corpus}-1`);
      const exported = await exportCli(world, first);
      assert.equal(exported.code, 0, exported.stderr + exported.stdout);
      assert.deepEqual(await world.writes(), [], 'export writes nothing to the API');
      assert.match(exported.stdout, /Exported example-org to .*: \d+ policies, 0 agent pools/);

      const original = await treeOf(source);
      const codeByName = new Map<string, Buffer>();
      for (const [rel, bytes] of original) {
        const match = /(?:^|\/)([^/]+)\.(native|rego)$/.exec(rel);
        if (match !== null && rel.startsWith('policies/')) codeByName.set(`${match[1]}.${match[2]}`, bytes);
      }
      const out = await treeOf(first);
      let codes = 0;
      for (const [rel, bytes] of out) {
        if (rel.endsWith('.yaml')) continue;
        const base = rel.slice('policies/'.length);
        const want = codeByName.get(base);
        if (want === undefined) continue; // a mock of the same name is ignored by the walk
        assert.ok(bytes.equals(want), `${rel} differs from the corpus file`);
        codes += 1;
      }
      assert.ok(codes > 20);

      // The organization's policy set was made by hand (seeded): exported too, it is adopted; the policies are unchanged.
      const dry = await world.cli('--dry-run', first, ['--source', 'default', '--output', 'json']);
      assert.equal(dry.code, 0, dry.stdout + dry.stderr);
      const changes = (JSON.parse(dry.stdout) as { sources: Array<{ changes: Array<{ resource: string; name: string; reason: string }> }> }).sources[0]!.changes;
      assert.deepEqual(changes.map((c) => `${c.resource} ${c.name}: ${c.reason}`), [`policy-set ${POLICY_SET}: adopt: add ownership marker`]);

      const second = path.join(scratch, `${corpus}-2`);
      assert.equal((await exportCli(world, second)).code, 0);
      assert.deepEqual([...(await treeOf(second))].map(([k, v]) => [k, v.toString('base64')]), [...out].map(([k, v]) => [k, v.toString('base64')]));
    });
  }

  it('keeps CRLF, a byte order mark and a missing final newline byte for byte; settings only where they differ; reports what it could not export', async () => {
    const made: Array<{ name: string; attributes: Record<string, unknown>; sets?: string[]; code: Buffer | null }> = [
      { name: 'crlf-code', attributes: { kind: 'native', 'enforcement-level': 'advisory' }, code: Buffer.from('main = rule {\r\n  true\r\n}\r\n') },
      { name: 'bom-code', attributes: { kind: 'native', description: 'Tricky: "quotes", # hash\nand a second line  ', 'enforcement-level': 'soft-mandatory' }, code: Buffer.from('\uFEFFmain = rule { true }\n') },
      { name: 'no-newline', attributes: { kind: 'opa', query: 'data.x.deny', 'enforcement-level': 'mandatory' }, sets: [POLICY_SET], code: Buffer.from('package x\n\ndeny contains "no" if { false }') },
      { name: 'never-uploaded', attributes: { kind: 'native', 'enforcement-level': 'advisory' }, code: null },
    ];
    for (const policy of made) {
      const created = await world.call('POST', `/organizations/${ORG}/policies`, { body: policyBody(policy.name, policy.attributes, policy.sets ?? []) });
      assert.equal(created.status, 200, created.text);
      if (policy.code !== null) {
        const uploaded = await world.call('PUT', `/policies/${created.json.data.id}/upload`, { raw: policy.code, contentType: 'application/octet-stream' });
        assert.equal(uploaded.status, 200, uploaded.text);
      }
    }
    const dir = path.join(scratch, 'bytes');
    const exported = await exportCli(world, dir);
    assert.equal(exported.code, 0, exported.stderr + exported.stdout);
    assert.match(exported.stdout, /Not exported \(1\):\n {2}policy "never-uploaded": no code was ever uploaded/);
    const out = await treeOf(dir);
    for (const policy of made.slice(0, 3)) {
      const ext = policy.attributes.kind === 'opa' ? 'rego' : 'native';
      assert.ok(out.get(`policies/${policy.name}.${ext}`)?.equals(policy.code as Buffer), policy.name);
    }
    assert.equal(out.has('policies/crlf-code.yaml'), false, 'all defaults: no settings file');
    assert.match(out.get('policies/no-newline.yaml')!.toString(), /query: data\.x\.deny\npolicy-sets:\n {2}- polset-Baseline0001\n/);

    const dry = await world.cli('--dry-run', dir, ['--source', 'default', '--output', 'json']);
    assert.equal(dry.code, 0, dry.stderr);
    const changes = JSON.parse(dry.stdout).sources[0].changes as Array<{ name: string; reason: string }>;
    assert.ok(changes.length > 0 && changes.every((c) => c.reason === 'adopt: add ownership marker'), JSON.stringify(changes));
    const adopted = await world.cli('--reconcile', dir, ['--source', 'default']);
    assert.equal(adopted.code, 0, adopted.stderr + adopted.stdout);
    const again = await world.cli('--dry-run', dir, ['--source', 'default', '--detailed-exitcode']);
    assert.equal(again.code, 0, again.stdout + again.stderr);
  });

  it('refuses a folder that is not empty, unless --force', async () => {
    const dir = path.join(scratch, 'busy');
    assert.equal((await exportCli(world, dir)).code, 0);
    await writeFile(path.join(dir, 'README.md'), 'mine\n');
    const refused = await exportCli(world, dir);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /not empty.*--force/);
    const forced = await exportCli(world, dir, ['--force']);
    assert.equal(forced.code, 0, forced.stderr);
    assert.equal(await readFile(path.join(dir, 'README.md'), 'utf8'), 'mine\n');
  });
});

/** The `sh` block under the heading that starts with `heading` in docs/coming-from-terraform.md, as argv (comments and line continuations dropped). */
async function docCommand(heading: string): Promise<string[]> {
  const doc = await readFile(path.join(REPO_ROOT, 'docs/coming-from-terraform.md'), 'utf8');
  const section = doc.slice(doc.indexOf(`## ${heading}`));
  const block = /```sh\n([\s\S]*?)```/.exec(section)?.[1] ?? '';
  const line = block.split('\n').filter((l) => !/^\s*export /.test(l)).map((l) => l.replace(/#.*$/, '').replace(/\\\s*$/, '')).join(' ');
  return line.trim().split(/\s+/).slice(1);
}

describe('--export of an organization with several agent pools, then step 4 of coming-from-terraform.md as written', () => {
  const fixture = useWorld({
    nativeKind: 'sentinel',
    organizations: [{
      name: ORG, maxAgentPools: 3, workspaces: WORKSPACES,
      agentPools: [{ name: 'build' }, { name: 'deploy', organizationScoped: false, allowedWorkspaces: [WORKSPACES[0]!.id] }, { name: 'scan' }],
    }],
  });

  it('prints --max-agent-pools 3, and the documented dry run with it plans 0 changes', async () => {
    const { world } = fixture;
    const dir = path.join(await fixture.repo({}), 'policy-repo');
    const substitute = (args: string[]): string[] => args.map((arg) => (arg === './policy-repo' ? dir : arg === 'my-org' ? ORG : /^(\.\.\.|https:\/\/app\.example\.com\/api\/v2)$/.test(arg) ? world.url : arg));
    const env = { API_TOKEN: world.token, LOG_LEVEL: 'warn', STATE_DIR: world.stateDir };
    const exportArgs = substitute(await docCommand('1. Export'));
    assert.deepEqual(exportArgs.slice(0, 2), ['--export', dir]);
    const exported = await runCli(exportArgs, { env });
    assert.equal(exported.code, 0, exported.stderr + exported.stdout);
    assert.match(exported.stdout, /3 agent pools: plan and apply with --max-agent-pools 3 /);

    const step4 = await docCommand('4. The first reconcile');
    const withoutFlag = substitute(step4.filter((arg, i) => arg !== '--max-agent-pools' && step4[i - 1] !== '--max-agent-pools'));
    const refused = await runCli(withoutFlag, { env });
    assert.equal(refused.code, 1, refused.stdout);
    assert.match(refused.stdout + refused.stderr, /max-agent-pools is 1: that is this tool's own guard[^\n]*not the organization's limit[^\n]*--max-agent-pools 3 \(or max-agent-pools: 3 on the source/);

    const documented = substitute(step4).map((arg, i, all) => (all[i - 1] === '--max-agent-pools' ? '3' : arg));
    assert.ok(documented.includes('--max-agent-pools'), 'step 4 gives the flag');
    const planned = await runCli([...documented, '--detailed-exitcode'], { env });
    assert.equal(planned.code, 0, planned.stdout + planned.stderr);
    assert.match(planned.stdout, /No changes/);
  });
});

describe('--export never writes outside its folder, and writes only what --validate accepts', () => {
  const fixture = useWorld();
  const env = () => ({ API_TOKEN: fixture.world.token, LOG_LEVEL: 'warn', STATE_DIR: fixture.world.stateDir });
  const exportTo = (dir: string, extra: string[] = []) => runCli(['--export', dir, '--organization', ORG, '--api-url', fixture.world.url, ...extra], { env: env() });

  async function made(name: string, code: string, attributes: Record<string, unknown> = { kind: 'native' }): Promise<void> {
    const created = await fixture.world.call('POST', `/organizations/${ORG}/policies`, { body: policyBody(name, attributes) });
    assert.equal(created.status, 200, created.text);
    const uploaded = await fixture.world.call('PUT', `/policies/${created.json.data.id}/upload`, { raw: code, contentType: 'application/octet-stream' });
    assert.equal(uploaded.status, 200, uploaded.text);
  }

  before(async () => {
    await made('plain', 'main = rule { true }\n');
    await made('with-level', 'main = rule { true }\n', { kind: 'native', 'enforcement-level': 'soft-mandatory' });
  });

  it('refuses DIR/policies or DIR/agent-pools that is a symbolic link, naming it; nothing is written through it', async () => {
    for (const folder of ['policies', 'agent-pools']) {
      const outside = await fixture.repo({ 'keep.txt': 'mine\n' });
      const dir = await fixture.repo({});
      await symlink(outside, path.join(dir, folder));
      const refused = await exportTo(dir, ['--force']);
      assert.equal(refused.code, 1, refused.stdout);
      assert.match(refused.stderr, new RegExp(`${folder} is a symbolic link; the export never writes through a link or outside its folder`));
      assert.deepEqual(await readdir(outside), ['keep.txt'], `nothing written through ${folder}`);
      assert.deepEqual((await readdir(dir)).sort(), [folder], 'nothing written at all');
    }
  });

  it('a symbolic link in a file\'s place is not written through: that policy is listed, the others are exported', async () => {
    const outside = await fixture.repo({ 'target.txt': 'precious\n' });
    const dir = await fixture.repo({});
    await mkdir(path.join(dir, 'policies'));
    await symlink(path.join(outside, 'target.txt'), path.join(dir, 'policies', 'plain.native'));
    const exported = await exportTo(dir, ['--force']);
    assert.equal(exported.code, 0, exported.stderr + exported.stdout);
    assert.equal(await readFile(path.join(outside, 'target.txt'), 'utf8'), 'precious\n');
    assert.match(exported.stdout, /policy "plain": policies\/plain\.native is a symbolic link in the export folder, which the export never writes through/);
    assert.equal(await readFile(path.join(dir, 'policies', 'with-level.yaml'), 'utf8'), 'enforcement-level: soft-mandatory\n');
  });

  it('lists a name too long for the file system, colliding names and LFS pointer code as not exported, goes on, and --validate accepts the folder', async () => {
    const long = 'x'.repeat(250);
    await made(long, 'main = rule { true }\n', { kind: 'native', 'enforcement-level': 'soft-mandatory' });
    await made('Twin', 'main = rule { true }\n');
    await made('twin', 'package twin\n\ndeny contains "no" if { false }\n', { kind: 'opa', query: 'data.twin.deny' });
    await made('Cased', 'main = rule { true }\n');
    await made('cased', 'main = rule { false }\n');
    await made('lfs-code', 'version https://git-lfs.github.com/spec/v1\noid sha256:4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393\nsize 12345\n');
    const dir = path.join(await fixture.repo({}), 'out');
    const exported = await exportTo(dir);
    assert.equal(exported.code, 0, exported.stderr + exported.stdout);
    assert.match(exported.stdout, new RegExp(`policy "${long}": the file name ${long}\\.native is too long for the file system`));
    assert.match(exported.stdout, /policy "Twin": its name differs only in case from "twin" \(opa\), and a declared repo holds one name once, whatever its case or kind/);
    assert.match(exported.stdout, /policy "twin": its name differs only in case from "Twin" \(native\)/);
    assert.match(exported.stdout, /policy "Cased": its name differs only in case from "cased" \(native\)/);
    assert.match(exported.stdout, /policy "lfs-code": its code looks like a Git LFS pointer/);
    const out = await treeOf(dir);
    assert.deepEqual([...new Set([...out.keys()].filter((rel) => rel.startsWith('policies/')).map((rel) => rel.replace(/^policies\/|\.\w+$/g, '')))].sort(), ['plain', 'with-level']);
    const validated = await runCli(['--validate', '--source-dir', dir], { env: env() });
    assert.equal(validated.code, 0, validated.stdout + validated.stderr);
  });
});
