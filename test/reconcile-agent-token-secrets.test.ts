/**
 * An agent token delivered to a key of a Kubernetes Secret the operator allows by name (tokens.secrets): written by a
 * merge patch of that key over the pod's service account (the API server played by test/helpers/secret-api.ts), a
 * Secret the config does not name refused by --validate and --dry-run before any request, and the text in no output.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ApiClient } from '../src/api/client.js';
import { kubernetesSecretWriter } from '../src/apply/token-secret.js';
import { sourceDefaults } from '../src/config/to-config.js';
import { silentLogger } from '../src/logger.js';
import { runPass } from '../src/reconcile.js';
import { runCli } from './helpers/cli.js';
import { ORG } from './helpers/emulator.js';
import { startSecretApi, type SecretApi } from './helpers/secret-api.js';
import { useWorld } from './helpers/world.js';

const SECRET = 'policy-pool-sync-agent-tokens';
const POOL_FILE = (secret: string) => `tokens:\n  - description: k8s-prod\n    deliver-to: { secret: ${secret}, key: build-prod }\n`;

describe('agent tokens delivered to a Kubernetes Secret', () => {
  const fixture = useWorld({ organizations: [{ name: ORG, agentPools: [{ name: 'build' }] }] });
  let kube: SecretApi;
  let serviceAccount: string;
  before(async () => {
    serviceAccount = mkdtempSync(path.join(tmpdir(), 'pps-sa-'));
    kube = await startSecretApi(serviceAccount, { namespace: 'sync', token: 'sa-token-0123456789' });
    writeFileSync(path.join(serviceAccount, 'token'), 'sa-token-0123456789\n');
    writeFileSync(path.join(serviceAccount, 'ca.crt'), kube.ca);
    writeFileSync(path.join(serviceAccount, 'namespace'), 'sync\n');
  });
  after(async () => {
    await kube.close();
    rmSync(serviceAccount, { recursive: true, force: true });
  });

  it('writes the token to the allowed Secret\'s key, keeping its other keys, and a second pass writes nothing', async () => {
    const world = fixture.world;
    kube.secrets.set(SECRET, { data: { other: Buffer.from('kept').toString('base64') } });
    const dir = await fixture.repo({ 'agent-pools/build.yaml': POOL_FILE(SECRET) });
    const api = new ApiClient({ baseUrl: world.url, token: world.token, logger: silentLogger() });
    const writer = kubernetesSecretWriter({ apiServer: kube.url, serviceAccountDir: serviceAccount });
    const source = { ...sourceDefaults('secrets', ORG), path: dir, tokenSecrets: [SECRET] };
    try {
      const first = await runPass({ source, dir, revision: null, api, logger: silentLogger(), mode: 'apply', secretWriter: writer });
      assert.equal(first.ok, true, JSON.stringify(first.sourcePlan));
      const state = (await world.control('GET', '/state')).json as { organizations: Array<{ 'agent-pools': Array<{ tokens: Array<{ token: string }> }> }> };
      const text = state.organizations[0]!['agent-pools'][0]!.tokens[0]!.token;
      const data = kube.secrets.get(SECRET)!.data;
      assert.equal(Buffer.from(data['build-prod']!, 'base64').toString('utf8'), text);
      assert.equal(Buffer.from(data['other']!, 'base64').toString('utf8'), 'kept', 'a merge patch of the one key');
      assert.deepEqual(kube.requests.map((r) => `${r.method} ${r.path}`), [`GET /api/v1/namespaces/sync/secrets/${SECRET}`, `PATCH /api/v1/namespaces/sync/secrets/${SECRET}`]);
      assert.ok(!JSON.stringify(first.sourcePlan).includes(text), 'the plan holds no token text');
      const second = await runPass({ source, dir, revision: null, api, logger: silentLogger(), mode: 'apply', secretWriter: writer });
      assert.equal(second.results.length, 0);
      assert.equal(kube.requests.length, 2);
    } finally {
      await writer.close();
      await api.close();
    }
  });

  it('refuses a Secret the config does not allow, in --validate and --dry-run, naming the file, before any request', async () => {
    const world = fixture.world;
    const dir = await fixture.repo({ 'agent-pools/build.yaml': POOL_FILE('someone-elses') });
    const config = path.join(await fixture.repo(), 'config.yaml');
    writeFileSync(config, `api: { url: "${world.url}" }\ntokens: { secrets: [${SECRET}] }\nsources:\n  - { name: secrets, organization: ${ORG}, path: "${dir}" }\n`);
    await world.clearRequests();
    for (const mode of ['--validate', '--dry-run']) {
      const run = await runCli([mode, '--config', config], { env: { API_TOKEN: world.token, LOG_LEVEL: 'warn', STATE_DIR: world.stateDir } });
      assert.equal(run.code, 1, `${mode}: ${run.stdout}`);
      assert.match(run.stdout + run.stderr, /agent-pools\/build\.yaml:3: tokens\[0\]\.deliver-to\.secret "someone-elses" is not a Secret the operator allows/);
    }
    assert.deepEqual(await world.requests(), []);
  });
});
