import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import { MAX_PAGES, newListing, unendingList } from '../src/api/paginate.js';
import type { CreatePolicyInput } from '../src/api/types.js';
import { ApiError } from '../src/errors.js';
import { startApiFixture, type ApiFixture } from './helpers/api-fixture.js';
import { smallRepo } from './helpers/repos.js';
import { useWorld } from './helpers/world.js';

const LIST = '^/organizations/acme/policies$';

function policyInput(name: string): CreatePolicyInput {
  return { name, kind: 'native', description: null, enforcementLevel: 'advisory', query: null, policySetIds: [] };
}

/** Awaits a rejection with an ApiError whose message names the request; resolves with it. */
async function apiErrorOf(promise: Promise<unknown>): Promise<ApiError> {
  const error = await promise.then(() => assert.fail('expected an ApiError'), (e: unknown) => e);
  assert.ok(error instanceof ApiError, `ApiError, got ${String(error)}`);
  assert.ok(error.message.startsWith(`${error.request.method} ${error.request.path} failed: `), error.message);
  return error;
}

describe('lists from a hostile server', () => {
  let f: ApiFixture;
  const names = Array.from({ length: 250 }, (_, i) => `listed-${String(i).padStart(3, '0')}`);
  before(async () => {
    f = await startApiFixture();
    for (const name of names) await f.client.createPolicy('acme', policyInput(name));
  });
  afterEach(async () => {
    await f.emulator.clearFaults();
    await f.emulator.clearRequests();
  });
  after(async () => { await f.close(); });

  /** The client, bounded: a list that never ends fails the test in 10 s instead of running forever. */
  const bounded = () => f.client.withSignal(AbortSignal.timeout(10_000));

  it('a next page that always points further: stopped at total-pages, with an error naming the request', async () => {
    await f.emulator.addFaults({ kind: 'endless-pages', method: 'GET', path: LIST, count: 0 });
    await f.emulator.clearRequests();
    const error = await apiErrorOf(bounded().listPolicies('acme'));
    assert.match(error.message, /^GET \/organizations\/acme\/policies\?page\[number\]=3&page\[size\]=100 failed: the list does not end: page 3 of 3 \(total-pages\) points to another; stopped after 3 pages$/);
    assert.equal((await f.emulator.requests()).length, 3);
  });

  it('an empty page that points to another: stopped there', async () => {
    await f.emulator.addFaults({ kind: 'endless-pages', method: 'GET', path: '^/organizations/fresh/policies$', count: 0 });
    await f.emulator.clearRequests();
    const error = await apiErrorOf(bounded().listPolicies('fresh'));
    assert.match(error.message, /the list does not end: page 1 is empty but points to another; stopped after 1 page$/);
    assert.equal((await f.emulator.requests()).length, 1);
  });

  it('resources repeated by a page (the organization changed while it was listed) are counted once', async () => {
    await f.emulator.addFaults({ kind: 'duplicate-items', method: 'GET', path: LIST, items: 6, count: 0 });
    await f.emulator.clearRequests();
    const listed = await f.client.listPolicies('acme');
    assert.equal(listed.length, 250);
    assert.deepEqual(listed.map((p) => p.name).sort(), names);
    const requests = await f.emulator.requests();
    assert.equal(requests.length, 3, 'the repeats did not cost a page');
    assert.ok(f.logLines.some((line) => /"repeated":12/.test(line) && /counted once/.test(line)), 'the repeats are logged');
  });

  it('a 200 whose body is not a document: an error naming the request, for a show and for a list', async () => {
    const [first] = await f.client.listPolicies('acme', { search: 'listed-000' });
    assert.ok(first);
    await f.emulator.addFaults({ kind: 'malformed', method: 'GET', path: '^/policies/' });
    const shown = await apiErrorOf(f.client.getPolicy(first.id));
    assert.equal(shown.status, 200);
    assert.match(shown.message, new RegExp(`^GET /policies/${first.id} failed: 200 but the response is unusable: document has no data object$`));

    await f.emulator.addFaults({ kind: 'malformed', method: 'GET', path: LIST, body: '<html>502 Bad Gateway</html>' });
    const listed = await apiErrorOf(f.client.listPolicies('acme'));
    assert.match(listed.message, /^GET \/organizations\/acme\/policies\?page\[number\]=1&page\[size\]=100 failed: 200 but the response is unusable: document has no data array$/);
  });

  it('a list whose resources are unusable: an error naming the page, not a crash', async () => {
    await f.emulator.addFaults({ kind: 'malformed', method: 'GET', path: LIST, body: '{"data":[{"type":"policies","id":"pol-x"}]}' });
    const error = await apiErrorOf(f.client.listPolicies('acme'));
    assert.match(error.message, /^GET \/organizations\/acme\/policies\?page\[number\]=1&page\[size\]=100 failed: 200 but the response is unusable: pol-x has no /);
  });

  it('a create answered by a malformed 200: an error naming the create; the policy was made, and is found by name', async () => {
    await f.emulator.addFaults({ kind: 'malformed', method: 'POST', path: LIST });
    const error = await apiErrorOf(f.client.createPolicy('acme', policyInput('garbled-answer')));
    assert.match(error.message, /^POST \/organizations\/acme\/policies failed: 200 but the response is unusable/);
    assert.equal((await f.client.listPolicies('acme', { search: 'garbled-answer' })).length, 1);
  });
});

describe('a list stops, whichever comes first', () => {
  const page = (current: number | null, size: number, next: string, extra: Record<string, number> = {}) => ({
    size,
    next,
    pagination: current === null ? extra : { 'current-page': current, 'page-size': 100, ...extra },
  });

  it('on a page answered twice, or a next page already read', () => {
    const listing = newListing();
    listing.urls.add('u1');
    assert.equal(unendingList(listing, page(1, 100, 'u2')), null);
    listing.urls.add('u2');
    assert.equal(unendingList(listing, page(1, 100, 'u3')), 'page 1 was answered twice');
    const other = newListing();
    other.urls.add('u1');
    assert.equal(unendingList(other, page(null, 100, 'u1')), 'page 1 points back to a page already read');
  });

  it('at the page count total-count allows, with room for a little growth', () => {
    const listing = newListing();
    // 250 resources fill 3 pages; two more are allowed for resources created meanwhile.
    for (let n = 1; n <= 4; n += 1) assert.equal(unendingList(listing, page(null, 100, `u${n + 1}`, { 'total-count': 250 })), null, `page ${n}`);
    assert.equal(unendingList(listing, page(null, 100, 'u6', { 'total-count': 250 })), '5 pages read, more than the 250 resources it announces (total-count) can fill');
  });

  it('at MAX_PAGES when the server announces nothing', () => {
    const listing = newListing();
    let stopped: string | null = null;
    let pages = 0;
    while (stopped === null && pages < MAX_PAGES + 5) {
      pages += 1;
      stopped = unendingList(listing, page(null, 100, `u${pages + 1}`));
    }
    assert.equal(pages, MAX_PAGES);
    assert.equal(stopped, `${MAX_PAGES} pages read, the most any list is followed for`);
  });
});

describe('a dry run against a server whose lists never end', () => {
  const fixture = useWorld();
  it('exits 1 naming the list, never as an empty or unchanged plan', async () => {
    const world = fixture.world;
    const dir = await fixture.repo(smallRepo());
    await world.addFaults({ kind: 'endless-pages', method: 'GET', count: 0 });
    const run = await world.cli('--dry-run', dir);
    assert.equal(run.code, 1, run.stdout + run.stderr);
    assert.match(run.stdout, /No plan: the live state could not be read/);
    assert.match(run.stdout, /GET \/organizations\/example-org\/\S+ failed: the list does not end: page 1 is empty but points to another/);
    assert.ok((await world.requests()).length < 10);
  });
});

describe('a server whose list grows as fast as it is read', () => {
  const fixture = useWorld();
  it('a page that adds nothing new ends the list with an error naming it; the dry run exits 1 within 5 s', { timeout: 60_000 }, async () => {
    const world = fixture.world;
    const dir = await fixture.repo(smallRepo());
    assert.equal((await world.cli('--reconcile', dir)).code, 0);
    await world.clearRequests();
    await world.addFaults(
      { kind: 'growing-pages', method: 'GET', path: '/policies$', count: 0 },
      { kind: 'latency', method: 'GET', path: '/agent-pools$', 'latency-ms': 500, count: 0 },
    );
    const run = await world.cli('--dry-run', dir);
    assert.equal(run.code, 1, run.stdout + run.stderr);
    assert.match(run.stdout + run.stderr, /GET \/organizations\/\S+\/policies\?page\[number\]=2&page\[size\]=100 failed: the list does not end: page 2 adds no resource that an earlier page did not hold, but points to another; stopped after 2 pages/);
    const lists = (await world.requests()).filter((r) => r.path.includes('/policies?'));
    assert.equal(lists.length, 2, JSON.stringify(lists));
  });
});
