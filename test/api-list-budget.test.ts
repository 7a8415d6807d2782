/**
 * Memory bounded by design: every list has a byte budget besides its page budget, and an evidence read's budget counts
 * bytes too. Against the emulator's `fat-pages` fault (a list that never ends, of fat resources): a list past its
 * budget fails naming the list and the limit; a budget of bytes spent ends the evidence read as a spent budget of
 * requests does (the command line's run against 3.8 MB pages: reconcile-fat-lists.test.ts).
 */
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import { createRunCache } from '../src/api/evidence-cache.js';
import { readEvidence } from '../src/api/evidence.js';
import { listAll, MAX_LIST_BYTES } from '../src/api/paginate.js';
import { BudgetSpentError, RequestBudget } from '../src/api/request-budget.js';
import { parsePolicy } from '../src/api/resources.js';
import { systemClock } from '../src/api/clock.js';
import { Transport } from '../src/api/transport.js';
import { ApiError } from '../src/errors.js';
import { startApiFixture, TOKEN, type ApiFixture } from './helpers/api-fixture.js';
import { captureLogs } from './helpers/logs.js';

const LIST = '^/organizations/acme/policies$';
const PATH = '/organizations/acme/policies';

describe('a list\'s budget of bytes', () => {
  let f: ApiFixture;
  let transport: Transport;
  before(async () => {
    f = await startApiFixture();
    await f.client.createPolicy('acme', { name: 'template', kind: 'native', description: null, enforcementLevel: 'advisory', query: null, policySetIds: [] });
    transport = new Transport({ baseUrl: f.emulator.url, token: f.emulator.token, logger: captureLogs().logger, rateLimit: 'auto', concurrency: 4, timeoutMs: 30_000, maxRetries: 0, retryBudgetMs: 30_000, clock: systemClock(), userAgent: 'test' });
  });
  afterEach(() => f.emulator.clearFaults());
  after(async () => {
    await transport.close();
    await f.close();
  });

  /** 20 kB pages (10 policies of 2 kB descriptions) that never end. */
  const fat = { kind: 'fat-pages' as const, method: 'GET', path: LIST, count: 0, items: 10, 'attribute-bytes': 2_000 };
  const signal = () => AbortSignal.timeout(20_000);

  it('an endless list of fat pages fails at its byte budget, naming the list and the limit', async () => {
    await f.emulator.addFaults(fat);
    const error = await listAll(transport, signal(), PATH, [], (r) => parsePolicy(r), undefined, { maxBytes: 200_000 }).then(() => assert.fail('the list ended'), (e: unknown) => e);
    assert.ok(error instanceof ApiError, String(error));
    assert.match(error.message, /^GET \/organizations\/acme\/policies\?page\[number\]=\d+&page\[size\]=100 failed: the list \/organizations\/acme\/policies is larger than the 0\.2 MiB of answers a list may take \(0\.2 MiB in \d+ pages\); it is not read further$/);
    const pages = (await f.emulator.requests()).filter((r) => r.path.startsWith(PATH)).length;
    assert.ok(pages >= 9 && pages <= 11, `${pages} pages read for 200 kB of 20 kB pages`);
  });

  it('a list within its budget is read whole; the default budget is 64 MiB', async () => {
    const pages = await listAll(transport, signal(), PATH, [], (r) => parsePolicy(r), undefined, { maxBytes: 200_000 });
    assert.deepEqual(pages.flatMap((p) => p.items).map((p) => p.name), ['template']);
    assert.deepEqual(Object.keys(pages[0]!), ['items', 'meta'], 'a page keeps its items and meta, never its document');
    assert.equal(MAX_LIST_BYTES, 64 * 1024 * 1024);
  });

  it('a request budget counts the bytes read through it: past them no request is sent', async () => {
    await f.emulator.addFaults(fat);
    const budget = new RequestBudget(1_000, 100_000);
    const error = await listAll(budget.view(transport), signal(), PATH, [], (r) => parsePolicy(r)).then(() => assert.fail('the list ended'), (e: unknown) => e);
    assert.ok(error instanceof BudgetSpentError, String(error));
    assert.equal(error.message, 'the budget of 0 MiB of answers is spent'.replace('0 MiB', `${Math.round(100_000 / 1048576)} MiB`));
    assert.ok(budget.spent >= 5 && budget.spent <= 6, `${budget.spent} requests for 100 kB of 20 kB pages`);
    assert.ok(budget.bytes >= 100_000);
    const reservation = budget.reserve(10);
    assert.ok(reservation !== null);
    assert.throws(() => reservation.take(), BudgetSpentError, 'what was set aside is not spent past the bytes either');
  });
});

describe('an evidence read of fat run pages at the default budget', () => {
  const NOW = Date.parse('2026-11-27T12:00:00.000Z');
  const WORKSPACES = [{ id: 'ws-one', name: 'one' }, { id: 'ws-two', name: 'two' }];
  let f: ApiFixture;
  before(async () => {
    const outcomes = [{ policy: 'deny-public', set: 'base', status: 'passed' as const }];
    f = await startApiFixture({
      token: TOKEN, rateLimit: 0,
      organizations: [{ name: 'acme', workspaces: WORKSPACES, runs: [{ workspace: 'ws-one', createdAt: new Date(NOW - 3_600_000).toISOString(), outcomes }] }],
    }, {}, () => NOW);
  });
  after(() => f.close());

  it('ends partial once 48 MiB of answers are read, far inside its 500 requests', async () => {
    // Runs with 38 kB messages, 100 a page, a list that never ends: 3.8 MB pages.
    await f.emulator.addFaults({ kind: 'fat-pages', method: 'GET', path: '/runs$', count: 0, attribute: 'message' });
    const readout = await readEvidence(f.client.runs, { organization: 'acme', workspaces: WORKSPACES, policies: ['deny-public'], now: () => NOW, cache: createRunCache() });
    assert.equal(readout.partial, true);
    assert.ok(readout.requests >= 12 && readout.requests <= 16, `${readout.requests} requests`);
  });
});
