/**
 * The emulator's page (docs/emulator.md), done as written: the seed example parses and is what the emulator serves, the
 * control endpoints table lists exactly the routes there are, and the embedded emulator of `npm start` takes API_TOKEN,
 * so a policy changed by hand through the API comes back on the next scheduled pass.
 */
import assert from 'node:assert/strict';
import { cp, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { parseSeed, startEmulator } from '../src/emulator/index.js';
import { spawnDaemon } from './helpers/daemon-process.js';
import { tempTree } from './helpers/temp-tree.js';
import { waitFor } from './helpers/wait.js';
import { REPO_ROOT } from './helpers/repo-root.js';

const ROOT = REPO_ROOT;
const readme = await readFile(join(ROOT, 'docs/emulator.md'), 'utf8');

function section(heading: string): string {
  const start = readme.indexOf(heading);
  assert.ok(start >= 0, `docs/emulator.md has "${heading}"`);
  return readme.slice(start);
}

describe("the emulator's page", () => {
  it('seed example: valid, and served as written (token, organization, faults)', async () => {
    const yaml = /```yaml\n([\s\S]*?)```/.exec(section('**Its seed**'))?.[1];
    assert.ok(yaml);
    const seed = parseSeed(yaml, 'docs/emulator.md');
    const emulator = await startEmulator({ port: 0, seed });
    try {
      assert.equal(emulator.token, 'dev-token');
      const list = () => fetch(`${emulator.url}/organizations/example-org/policies`, { headers: { authorization: 'Bearer dev-token' } });
      assert.deepEqual([(await list()).status, (await list()).status, (await list()).status], [503, 503, 200], 'the seeded fault answers twice');
      const state = (await (await fetch(`${emulator.origin}/_emulator/state`, { headers: { authorization: 'Bearer dev-token' } })).json()) as {
        organizations: Array<{ name: string; 'agent-pools': Array<{ name: string; agents: unknown[] }> }>;
      };
      assert.deepEqual(state.organizations.map((o) => [o.name, o['agent-pools'].map((p) => [p.name, p.agents.length])]), [['example-org', [['build', 2]]]]);
    } finally {
      await emulator.close();
    }
  });

  it('control endpoints table: exactly the routes the emulator serves', async () => {
    const control = await readFile(join(ROOT, 'src/emulator/control.ts'), 'utf8');
    const served = [...control.matchAll(/method: '(\w+)', pattern: '([^']+)'/g)].map(([, method, pattern]) => `${method} ${pattern!.replace(/:\w+/g, 'ID')}`).sort();
    const table = section('**Its control endpoints**').split('\n\n')[1] ?? '';
    const documented = [...table.matchAll(/`(GET|POST|PUT|PATCH|DELETE) \/_emulator(\/[\w/-]+)/g)].map(([, method, path]) => `${method} ${path}`).sort();
    assert.ok(served.length >= 9, served.join('\n'));
    assert.deepEqual(documented, served);
  });

  it('npm start: the embedded emulator takes API_TOKEN, names its URL, and a change by hand comes back', async (t) => {
    const declared = await tempTree(t, {}, 'pps-example-');
    await cp(join(ROOT, 'examples/declared'), declared, { recursive: true });
    const daemon = await spawnDaemon(
      t,
      { api: { url: 'embedded' }, sources: [{ name: 'example', organization: 'example-org', path: declared, schedule: '*/1 * * * * *' }] },
      { API_TOKEN: 'dev-token' },
    );
    const warning = await waitFor('the embedded emulator warning', () => daemon.logs().find((l) => String(l.msg).startsWith('api.url is "embedded"')));
    const url = String(warning['url']);
    const headers = { authorization: 'Bearer dev-token', 'content-type': 'application/vnd.api+json' };
    const level = async () => {
      const list = (await (await fetch(`${url}/organizations/example-org/policies`, { headers })).json()) as {
        data: Array<{ id: string; attributes: { name: string; 'enforcement-level': string } }>;
      };
      return list.data.find((p) => p.attributes.name === 'require-mandatory-tags');
    };
    const policy = await waitFor('the first pass to create the policy', level);
    assert.equal(policy.attributes['enforcement-level'], 'hard-mandatory');
    const patched = await fetch(`${url}/policies/${policy.id}`, {
      method: 'PATCH',
      headers,
      body: JSON.stringify({ data: { type: 'policies', attributes: { 'enforcement-level': 'advisory' } } }),
    });
    assert.equal(patched.status, 200);
    await waitFor('the scheduled pass to put it back', async () => ((await level())?.attributes['enforcement-level'] === 'hard-mandatory' ? true : undefined));
  });
});
