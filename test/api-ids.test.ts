/**
 * Ids from an answer or from the repo become path segments only when they are ids of their kind: a server answering
 * a policy with id `..` or `.` makes the tool refuse the answer, send nothing and report no delete.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ApiClient } from '../src/api/client.js';
import { idSegment, isId, MAX_ID_SUFFIX, shownId } from '../src/api/ids.js';
import { ApiError } from '../src/errors.js';
import { captureLogs } from './helpers/logs.js';
import { runCli } from './helpers/cli.js';
import { ORG, TestEmulator } from './helpers/emulator.js';
import { startHostileProxy, type HostileServer, type Seen } from './helpers/hostile-proxy.js';
import { useTempTrees } from './helpers/temp-tree.js';

describe('ids before URLs', { timeout: 120_000 }, () => {
  it('each kind has its prefix and a bounded run of letters, digits, - and _', () => {
    assert.ok(isId('policy', 'pol-abc_DEF-123'));
    assert.ok(isId('agent-pool', 'apool-x'));
    assert.ok(isId('agent', 'agent-x'));
    assert.ok(isId('policy-set', `polset-${'a'.repeat(MAX_ID_SUFFIX)}`));
    assert.ok(isId('workspace', 'ws-x'));
    assert.ok(isId('project', 'prj-x'));
    for (const bad of ['..', '.', '', 'pol-', 'pol-a/b', 'pol-a%2F', 'pol-..', 'apool-x', `pol-${'a'.repeat(MAX_ID_SUFFIX + 1)}`, 'pol-a\n', 'pol-é']) {
      assert.equal(isId('policy', bad), false, bad);
      assert.throws(() => idSegment('policy', bad), TypeError, bad);
    }
    assert.equal(isId('policy', 42), false);
    const long = shownId(`polset-${'z'.repeat(20_000)}`);
    assert.ok(long.length < 80, long);
    assert.match(long, /\(20007 characters\)$/);
  });

  describe('a server answering ids that are not ids', () => {
    let api: TestEmulator;
    let proxy: HostileServer;
    const trees = useTempTrees('pps-ids-');
    /** The id every listed policy named `gone` is given, or null to forward as is. */
    let forged: string | null = null;

    before(async () => {
      api = await TestEmulator.start();
      const rewrite = (seen: Seen, document: unknown): unknown => {
        if (forged === null || seen.method !== 'GET' || !seen.url.includes('/policies')) return document;
        const data = (document as { data?: unknown }).data;
        for (const item of Array.isArray(data) ? data : [data]) {
          const resource = item as { id?: string; attributes?: { name?: string } };
          if (resource.attributes?.name === 'gone') resource.id = forged;
        }
        return document;
      };
      proxy = await startHostileProxy(api.origin, { rewrite });
    });
    after(async () => {
      await proxy.close();
      await api.close();
    });

    const run = (dir: string) =>
      runCli(['--reconcile', '--prune', '--source', 'main', '--source-dir', dir, '--organization', ORG, '--api-url', `${proxy.origin}/api/v2`, '--no-cache'], { env: { API_TOKEN: api.token, LOG_LEVEL: 'warn' } });

    it('the client refuses the list that holds such an id, and never puts one in a path', async () => {
      const client = new ApiClient({ baseUrl: `${proxy.origin}/api/v2`, token: api.token, logger: captureLogs().logger, retryBudgetMs: 0 });
      try {
        await client.createPolicy(ORG, { name: 'gone', kind: 'native', description: null, enforcementLevel: 'advisory', query: null, policySetIds: [] });
        forged = '..';
        const error = await client.listPolicies(ORG).then(() => assert.fail('the list was taken'), (e: unknown) => e);
        assert.ok(error instanceof ApiError && /"\.\." is not a policy id/.test(error.message), String(error));
        proxy.seen.length = 0;
        for (const call of [() => client.deletePolicy('..'), () => client.deleteAgentPool('.'), () => client.removeFromPolicySet(`polset-${'x'.repeat(20_000)}`, 'policies', ['pol-a']), () => client.listAgents('apool-a/../..')]) {
          await assert.rejects(call(), TypeError);
        }
        assert.deepEqual(proxy.seen, [], 'nothing was sent');
      } finally {
        forged = null;
        await client.close();
      }
    });

    it('a policy listed with id `..` or `.` is refused: no request with it is sent, nothing is reported deleted', async () => {
      forged = null;
      const made = await run(await trees({ 'policies/gone.native': 'main = rule { true }\n', 'policies/kept.native': 'main = rule { true }\n' }));
      assert.equal(made.code, 0, made.stderr + made.stdout);
      const only = await trees({ 'policies/kept.native': 'main = rule { true }\n' });
      for (const id of ['..', '.']) {
        forged = id;
        proxy.seen.length = 0;
        const refused = await run(only);
        assert.notEqual(refused.code, 0, refused.stdout);
        assert.ok(proxy.seen.every((r) => r.method === 'GET'), JSON.stringify(proxy.seen.map((r) => `${r.method} ${r.url}`)));
        assert.doesNotMatch(refused.stdout, /deleted/);
        assert.match(refused.stdout + refused.stderr, new RegExp(`"${id.replace(/\./g, '\\.')}" is not a policy id`));
      }
      assert.ok((await api.policies()).some((p) => p.name === 'gone'), 'the policy is still there');
      forged = null;
    });
  });
});
