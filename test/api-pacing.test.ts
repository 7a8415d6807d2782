import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { runLoad } from './helpers/api-load.js';
import { startApiFixture, testSeed, type ApiFixture } from './helpers/api-fixture.js';

describe('pacing', () => {
  let f: ApiFixture;
  let policyId: string;
  const answered: Array<number | 'error'> = [];
  let waitedSeconds = 0;
  before(async () => {
    f = await startApiFixture(testSeed({ rateLimit: 30 }), {
      onRequest: ({ status }) => void answered.push(status),
      onRateLimitWait: (seconds) => void (waitedSeconds += seconds),
    });
    policyId = (await f.client.createPolicy('acme', {
      name: 'paced', kind: 'native', description: null, enforcementLevel: 'advisory', query: null, policySetIds: [],
    })).id;
    await new Promise((resolve) => setTimeout(resolve, 1100));
    await f.control.clearRequests();
  });
  after(async () => { await f.close(); });

  it('300 requests at a 30 req/s limit sustain at least 27 req/s with at most 5 429s', async (t) => {
    const result = await runLoad(f.client, policyId, 300);
    const logged = await f.control.requests();
    const tooMany = logged.filter((r) => r.status === 429).length;
    const summary = `sustained ${result.rate.toFixed(2)} req/s over ${result.seconds.toFixed(2)} s, ${tooMany} responses 429`;
    t.diagnostic(summary);
    console.log(summary);
    assert.equal(logged.filter((r) => r.status === 200).length, 300);
    assert.equal(tooMany, result.rateLimited);
    assert.ok(tooMany <= 5, summary);
    assert.ok(result.rate >= 27, summary);
    assert.ok(result.rate <= 31.5, `never faster than the limit allows: ${summary}`);
    assert.equal(answered.length, 301 + tooMany, 'onRequest once per response');
    assert.ok(waitedSeconds > 1 && Math.abs(waitedSeconds - f.client.stats().rateLimitWaitSeconds) < 1e-6, `waited ${waitedSeconds} s`);
  });
});
