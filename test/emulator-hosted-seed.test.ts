import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseSeed, startEmulator } from '../src/emulator/index.js';

describe('seed keys for the hosted service', () => {
  it('native-kind, rate-limit-reset and a pool\'s workspaces are read from YAML', () => {
    const seed = parseSeed([
      'native-kind: sentinel',
      'rate-limit-reset: zero',
      'organizations:',
      '  - name: o',
      '    workspaces: [{ id: ws-1, name: a }]',
      '    agent-pools: [{ name: p, workspaces: [ws-1] }]',
      '',
    ].join('\n'), 'seed.yaml');
    assert.equal(seed.behaviour?.nativeKind, 'sentinel');
    assert.equal(seed.rateLimitReset, 'zero');
    assert.deepEqual(seed.organizations[0]?.agentPools?.[0]?.workspaces, ['ws-1']);
  });

  it('rate-limit-reset: zero answers every x-ratelimit-reset with 0.0, the 429 included', async () => {
    const emulator = await startEmulator({ port: 0, seed: { token: 't', rateLimit: 2, rateLimitReset: 'zero', organizations: [] } });
    try {
      const resets: Array<[number, string | null]> = [];
      for (let i = 0; i < 3; i += 1) {
        const res = await fetch(`${emulator.url}/ping`, { headers: { authorization: 'Bearer t' } });
        await res.arrayBuffer();
        resets.push([res.status, res.headers.get('x-ratelimit-reset')]);
      }
      assert.deepEqual(resets, [[204, '0.0'], [204, '0.0'], [429, '0.0']]);
    } finally {
      await emulator.close();
    }
  });
});
