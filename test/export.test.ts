import assert from 'node:assert/strict';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { runCli } from './helpers/cli.js';
import { ORG, POLICY_SET, policyBody } from './helpers/emulator.js';
import { CORPUS } from './helpers/repos.js';
import { World } from './helpers/world.js';

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
    it(`round-trips the ${corpus} corpus exactly: same code bytes, a dry run finds nothing, a second export is identical`, async () => {
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

      const dry = await world.cli('--dry-run', first, ['--source', 'default', '--detailed-exitcode']);
      assert.equal(dry.code, 0, dry.stdout + dry.stderr);
      assert.match(dry.stdout, /No changes/);

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
