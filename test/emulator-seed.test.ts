import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { defaultSeed, parseSeed, startEmulator } from '../src/emulator/index.js';
import { ValidationError } from '../src/errors.js';

const FULL = `
token: my-token
rate-limit: 12
rate-limit-window: fixed
organizations:
  - name: example-org
    max-agent-pools: 2
    workspaces: [{ id: ws-AbCdEf123456, name: app }]
    policy-sets: [polset-AbCdEf123456]
    agent-pools:
      - name: build
        organization-scoped: false
        allowed-workspaces: [ws-AbCdEf123456]
        agents: [{ name: runner-1, status: exited, ip-address: 10.0.0.5, last-ping-at: 2026-01-01T00:00:00Z }]
faults:
  - { kind: latency, method: get, path: "^/policies", latency-ms: 250, count: 0 }
behaviour: { pool-patch-resets-scope: false, legacy-enforce: true }
`;

function problemsOf(yaml: string): { file: string; line?: number; message: string }[] {
  try {
    parseSeed(yaml, 'seeds/bad.yaml');
  } catch (error) {
    assert.ok(error instanceof ValidationError);
    assert.match(error.message, /seeds\/bad\.yaml/);
    return error.problems;
  }
  assert.fail('expected a ValidationError');
}

describe('emulator seed', () => {
  it('parses kebab-case YAML into the Seed shape', () => {
    assert.deepEqual(parseSeed(FULL, 'seed.yaml'), {
      token: 'my-token',
      rateLimit: 12,
      rateLimitWindow: 'fixed',
      organizations: [
        {
          name: 'example-org',
          maxAgentPools: 2,
          workspaces: [{ id: 'ws-AbCdEf123456', name: 'app' }],
          policySets: ['polset-AbCdEf123456'],
          agentPools: [
            {
              name: 'build',
              organizationScoped: false,
              allowedWorkspaces: ['ws-AbCdEf123456'],
              agents: [{ name: 'runner-1', status: 'exited', ipAddress: '10.0.0.5', lastPingAt: '2026-01-01T00:00:00.000Z' }],
            },
          ],
        },
      ],
      faults: [{ kind: 'latency', method: 'GET', path: '^/policies', 'latency-ms': 250, count: 0 }],
      behaviour: { poolPatchResetsScope: false, legacyEnforce: true },
    });
  });

  it('reports behaviour switches that are unknown or not true or false', () => {
    const problems = problemsOf('organizations: []\nbehaviour:\n  legacy-enforce: maybe\n  lenient: true\n');
    assert.deepEqual(problems.map((p) => [p.line, p.message]), [
      [3, 'behaviour.legacy-enforce must be true or false, not "maybe"'],
      [4, 'unknown key "lenient" in behaviour (allowed: pool-patch-resets-scope, reject-enforce-with-level, legacy-enforce, native-kind, list-omits-policy-sets, show-omits-policy-sets, ingestion-ms, run-lists-ignore-include)'],
    ]);
  });
  it('seeds an agent that never pinged (null last-ping-at and ip-address) with its created-at, and serves it so', async () => {
    const yaml = [
      'token: t',
      'organizations:',
      '  - name: o',
      '    agent-pools:',
      '      - name: p',
      '        agents:',
      '          - { name: never, status: exited, ip-address: null, last-ping-at: null, created-at: 2026-01-01T00:00:00Z }',
      '          - { name: fresh, status: idle, created-at: 2026-01-02T00:00:00Z }',
    ].join('\n');
    const seed = parseSeed(yaml, 'seed.yaml');
    assert.deepEqual(seed.organizations[0]?.agentPools?.[0]?.agents, [
      { name: 'never', status: 'exited', ipAddress: null, lastPingAt: null, createdAt: '2026-01-01T00:00:00.000Z' },
      { name: 'fresh', status: 'idle', createdAt: '2026-01-02T00:00:00.000Z' },
    ]);
    const emulator = await startEmulator({ seed });
    try {
      const headers = { authorization: 'Bearer t' };
      const pools = (await (await fetch(`${emulator.url}/organizations/o/agent-pools`, { headers })).json()) as { data: { id: string }[] };
      const agents = (await (await fetch(`${emulator.url}/agent-pools/${pools.data[0]?.id}/agents`, { headers })).json()) as { data: { attributes: Record<string, unknown> }[] };
      const [never, fresh] = agents.data.map((a) => a.attributes);
      assert.deepEqual(never, { name: 'never', status: 'exited', 'ip-address': null, 'last-ping-at': null, 'created-at': '2026-01-01T00:00:00.000Z' });
      assert.equal(fresh?.['created-at'], '2026-01-02T00:00:00.000Z');
      assert.equal(fresh?.['ip-address'], '127.0.0.1');
      assert.match(String(fresh?.['last-ping-at']), /^\d{4}-\d{2}-\d{2}T/, 'an agent seeded without a last ping pinged now');
    } finally {
      await emulator.close();
    }
    const bad = problemsOf('organizations:\n  - name: o\n    agent-pools:\n      - name: p\n        agents: [{ status: exited, created-at: null, last-ping-at: soon }]\n');
    assert.deepEqual(bad.map((p) => p.line), [5, 5]);
  });

  it('reports every problem with the file and line', () => {
    const problems = problemsOf(
      [
        'rate-limit: fast', //                                   1
        'colour: blue', //                                        2
        'organizations:', //                                      3
        '  - name: o', //                                         4
        '    workspaces: [{ id: ws-1, name: a }]', //             5
        '    agent-pools:', //                                    6
        '      - name: p', //                                     7
        '        allowed-workspaces: [ws-2]', //                  8
        '        agents: [{ status: sleeping }]', //              9
        'faults: [{ kind: boom }]', //                            10
      ].join('\n'),
    );
    assert.deepEqual(
      problems.map((p) => [p.file, p.line]),
      [
        ['seeds/bad.yaml', 1],
        ['seeds/bad.yaml', 2],
        ['seeds/bad.yaml', 8],
        ['seeds/bad.yaml', 9],
        ['seeds/bad.yaml', 10],
      ],
    );
    assert.match(problems[0]!.message, /^rate-limit must be a whole number/);
    assert.match(problems[1]!.message, /colour/);
    assert.match(problems[2]!.message, /ws-2/);
    assert.match(problems[3]!.message, /status/);
    assert.match(problems[4]!.message, /^faults\[0\]\.kind "boom"/);
  });

  it('reads policy sets as ids or whole, with projects and entitlements; reports a set used twice or scoped outside its organization', () => {
    const seed = parseSeed([
      'organizations:',
      '  - name: o',
      '    workspaces: [{ id: ws-a, name: a, project: prj-p }]',
      '    projects: [{ id: prj-p, name: P }]',
      '    policy-sets: [polset-plain, { id: polset-opa, name: rego, kind: opa, global: false, workspaces: [ws-a], projects: [prj-p] }]',
      '    entitlements: { policy-set-limit: 1, policy-limit: 5, versioned-policy-set-limit: 0 }',
    ].join('\n'), 'seed.yaml');
    const [org] = seed.organizations;
    assert.deepEqual(org!.policySets, ['polset-plain', { id: 'polset-opa', name: 'rego', kind: 'opa', global: false, workspaces: ['ws-a'], projects: ['prj-p'] }]);
    assert.deepEqual(org!.entitlements, { policySetLimit: 1, policyLimit: 5, versionedPolicySetLimit: 0 });
    assert.deepEqual(org!.workspaces, [{ id: 'ws-a', name: 'a', project: 'prj-p' }]);
    const problems = problemsOf([
      'organizations:', //                                                                   1
      '  - name: o', //                                                                      2
      '    workspaces: [{ id: ws-a, name: a }]', //                                          3
      '    policy-sets:', //                                                                 4
      '      - polset-one', //                                                               5
      '      - { id: polset-two, name: polset-one, workspaces: [ws-b], projects: [prj-x] }', // 6
    ].join('\n'));
    assert.deepEqual(problems.map((p) => p.line), [6, 6, 6]);
    assert.match(problems[0]!.message, /the policy set name "polset-one" is used twice/);
    assert.match(problems[1]!.message, /"ws-b" is not one of the workspaces of organization "o"/);
    assert.match(problems[2]!.message, /"prj-x" is not one of the projects of organization "o"/);
    const shapes = problemsOf('organizations:\n  - name: o\n    policy-sets: [foo, { id: polset-a, kind: weird }, 3]\n');
    assert.deepEqual(shapes.map((p) => p.message), [
      'organizations[0].policy-sets[0] "foo" is not a policy set id (polset- followed by at most 64 letters, digits, - and _)',
      'organizations[0].policy-sets[1].kind "weird" is not one of: native, opa, tfpolicy',
      'organizations[0].policy-sets[2] must be a mapping, not 3',
    ]);
  });

  it('reports YAML syntax errors and duplicate organizations', () => {
    assert.equal(problemsOf('organizations: [\n')[0]?.file, 'seeds/bad.yaml');
    const dup = problemsOf('organizations:\n  - name: a\n  - name: a\n');
    assert.deepEqual(dup.map((p) => p.line), [3]);
  });

  it('defaultSeed has example-org with two workspaces and one policy set', () => {
    const seed = defaultSeed();
    assert.equal(seed.organizations.length, 1);
    const [org] = seed.organizations;
    assert.equal(org!.name, 'example-org');
    assert.equal(org!.workspaces?.length, 2);
    assert.ok(org!.workspaces!.every((ws) => ws.id.startsWith('ws-')));
    assert.equal(org!.policySets?.length, 1);
    const set = org!.policySets![0]!;
    assert.ok((typeof set === 'string' ? set : set.id).startsWith('polset-'));
  });

  it('serves the default seed and takes the token from the seed, else API_TOKEN, else a random one', async () => {
    const saved = process.env.API_TOKEN;
    try {
      process.env.API_TOKEN = 'from-env';
      const fromEnv = await startEmulator();
      assert.equal(fromEnv.token, 'from-env');
      assert.match(fromEnv.url, /^http:\/\/127\.0\.0\.1:\d+\/api\/v2$/);
      assert.equal(fromEnv.url, `${fromEnv.origin}/api/v2`);
      const res = await fetch(`${fromEnv.url}/organizations/example-org/policies`, { headers: { authorization: 'Bearer from-env' } });
      assert.equal(res.status, 200);
      await fromEnv.close();

      const fromSeed = await startEmulator({ seed: parseSeed(FULL, 'seed.yaml') });
      assert.equal(fromSeed.token, 'my-token');
      const pools = await fetch(`${fromSeed.url}/organizations/example-org/agent-pools`, { headers: { authorization: 'Bearer my-token' } });
      const body = (await pools.json()) as { data: { attributes: { name: string; 'agent-count': number } }[] };
      assert.deepEqual(body.data.map((p) => [p.attributes.name, p.attributes['agent-count']]), [['build', 0]]);
      assert.equal(pools.headers.get('x-ratelimit-limit'), '12');
      await fromSeed.close();

      delete process.env.API_TOKEN;
      const random = await startEmulator();
      assert.ok(random.token.length >= 16);
      await random.close();
    } finally {
      if (saved === undefined) delete process.env.API_TOKEN;
      else process.env.API_TOKEN = saved;
    }
  });
});
