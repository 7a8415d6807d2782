import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { after, before, beforeEach, describe, it } from 'node:test';
import { ISO_MS, policyBody, TestEmulator, orgSeed } from './helpers/emulator.js';
import { waitFor } from './helpers/wait.js';

const CREATE_PATH = '^/organizations/[^/]+/policies$';
const policyNames = async (t: TestEmulator): Promise<string[]> =>
  (await t.call('GET', '/organizations/org/policies')).json.data.map((p: { attributes: { name: string } }) => p.attributes.name);

describe('emulator fault injection', () => {
  let t: TestEmulator;
  before(async () => {
    t = await TestEmulator.start(orgSeed());
  });
  beforeEach(async () => {
    await t.control('DELETE', '/faults');
  });
  after(() => t.close());

  it('status: answers with the status and an error document without doing the work, once by default', async () => {
    assert.equal((await t.control('POST', '/faults', { faults: [{ kind: 'status', method: 'POST', path: CREATE_PATH, status: 503 }] })).status, 200);
    const failed = await t.call('POST', '/organizations/org/policies', { body: policyBody('s1', { 'enforcement-level': 'advisory' }) });
    assert.equal(failed.status, 503);
    assert.equal(failed.json.errors[0].status, '503');
    assert.deepEqual(await policyNames(t), [], 'not created');
    const retried = await t.call('POST', '/organizations/org/policies', { body: policyBody('s1', { 'enforcement-level': 'advisory' }) });
    assert.equal(retried.status, 200);
  });

  it('matches method and path, honours count, and count 0 is unlimited until cleared', async () => {
    await t.control('POST', '/faults', { faults: [{ kind: 'status', method: 'DELETE', status: 500, count: 2 }] });
    assert.equal((await t.call('GET', '/organizations/org/policies')).status, 200, 'GET does not match');
    assert.equal((await t.call('DELETE', '/policies/pol-x')).status, 500);
    assert.equal((await t.call('DELETE', '/policies/pol-x')).status, 500);
    assert.equal((await t.call('DELETE', '/policies/pol-x')).status, 404, 'count used up');
    await t.control('POST', '/faults', { faults: [{ kind: 'status', path: '^/agent-pools', status: 502, count: 0 }] });
    for (let i = 0; i < 4; i += 1) assert.equal((await t.call('GET', '/agent-pools/apool-x')).status, 502);
    await t.control('DELETE', '/faults');
    assert.equal((await t.call('GET', '/agent-pools/apool-x')).status, 404);
  });

  it('latency: delays the response, which then succeeds', async () => {
    await t.control('POST', '/faults', { faults: [{ kind: 'latency', path: '^/organizations/org/policies$', 'latency-ms': 300 }] });
    const started = performance.now();
    const res = await t.call('GET', '/organizations/org/policies');
    assert.equal(res.status, 200);
    assert.ok(performance.now() - started >= 280, 'delayed by about 300 ms');
  });

  it('latency: a write whose body was received is applied after the delay, even when its client has gone away', async () => {
    const id = (await t.call('POST', '/organizations/org/policies', { body: policyBody('late', { 'enforcement-level': 'advisory' }) })).json.data.id;
    await t.control('POST', '/faults', { faults: [{ kind: 'latency', method: 'PATCH', path: '^/policies/', 'latency-ms': 200 }] });
    const body = JSON.stringify({ data: { type: 'policies', id, attributes: { description: 'written late' } } });
    const origin = new URL(t.origin);
    const socket = connect(Number(origin.port), origin.hostname);
    await new Promise<void>((resolve) => socket.once('connect', resolve));
    socket.on('error', () => undefined);
    // The whole request, then the client goes away without waiting for the answer.
    socket.end([
      `PATCH /api/v2/policies/${id} HTTP/1.1`, `Host: ${origin.host}`, `Authorization: Bearer ${t.token}`,
      'Content-Type: application/vnd.api+json', `Content-Length: ${Buffer.byteLength(body)}`, 'Connection: close', '', body,
    ].join('\r\n'));
    await new Promise((resolve) => socket.once('close', resolve));
    // The emulator logs the request once it has handled it, answered or not.
    await waitFor('the emulator to log the PATCH', async () => ((await t.requests()).some((r) => r.method === 'PATCH') ? true : undefined));
    assert.equal((await t.call('GET', `/policies/${id}`)).json.data.attributes.description, 'written late');
  });

  it('drop: destroys the connection without answering and without doing the work', async () => {
    const id = (await t.call('POST', '/organizations/org/policies', { body: policyBody('d1', { 'enforcement-level': 'advisory' }) })).json.data.id;
    await t.control('POST', '/faults', { faults: [{ kind: 'drop', method: 'DELETE', path: '^/policies/' }] });
    await assert.rejects(t.call('DELETE', `/policies/${id}`));
    assert.equal((await t.call('GET', `/policies/${id}`)).status, 200, 'still there');
  });

  it('lose-response: does the work, then destroys the connection; the write is visible afterwards', async () => {
    await t.control('POST', '/faults', { faults: [{ kind: 'lose-response', method: 'POST', path: CREATE_PATH }] });
    await assert.rejects(t.call('POST', '/organizations/org/policies', { body: policyBody('lost', { 'enforcement-level': 'advisory' }) }));
    assert.ok((await policyNames(t)).includes('lost'));
    const state = await t.control('GET', '/state');
    const org = state.json.organizations[0];
    assert.ok(org.policies.some((p: { name: string }) => p.name === 'lost'));
  });

  it('refuses a malformed fault list with 400', async () => {
    const badKind = await t.control('POST', '/faults', { faults: [{ kind: 'explode' }] });
    assert.equal(badKind.status, 400);
    assert.match(badKind.json.errors[0].detail, /^faults\[0\]\.kind "explode" is not one of: status, latency, drop, lose-response, malformed, headers, endless-pages, growing-pages, duplicate-items, huge-body, fat-pages$/);
    const badPath = await t.control('POST', '/faults', { faults: [{ kind: 'status', path: '(' }] });
    assert.equal(badPath.status, 400);
    assert.match(badPath.json.errors[0].detail, /^faults\[0\]\.path "\(" is not a valid regular expression$/);
    assert.equal((await t.control('POST', '/faults', {})).status, 400);
    assert.equal((await t.control('POST', '/faults', { faults: [{ kind: 'headers', headers: { 'x-ratelimit-limit': 1 } }] })).status, 400, 'header values are strings');
    assert.equal((await t.control('POST', '/faults', { faults: [{ kind: 'status', 'duration-ms': -1 }] })).status, 400);
    assert.equal((await t.control('POST', '/faults', { faults: [{ kind: 'duplicate-items', items: 0 }] })).status, 400);
  });

  it('malformed: does the work, then answers 200 with a body that is not a document', async () => {
    await t.control('POST', '/faults', { faults: [{ kind: 'malformed', method: 'POST', path: CREATE_PATH }] });
    const res = await t.call('POST', '/organizations/org/policies', { body: policyBody('garbled', { 'enforcement-level': 'advisory' }) });
    assert.equal(res.status, 200);
    assert.equal(res.json, undefined, 'not JSON');
    assert.ok((await policyNames(t)).includes('garbled'));
  });

  it('headers: does the work and answers with the headers given; a status fault takes them too', async () => {
    await t.control('POST', '/faults', { faults: [
      { kind: 'status', status: 429, method: 'GET', headers: { 'x-ratelimit-reset': '100000000' } },
      { kind: 'headers', method: 'GET', headers: { 'x-ratelimit-limit': '0.01' } },
    ] });
    const limited = await t.call('GET', '/organizations/org/policies');
    assert.equal(limited.status, 429);
    assert.equal(limited.headers.get('x-ratelimit-reset'), '100000000');
    const answered = await t.call('GET', '/organizations/org/policies');
    assert.equal(answered.status, 200);
    assert.equal(answered.headers.get('x-ratelimit-limit'), '0.01');
  });

  it('endless-pages: the next page always points one further, past the end too', async () => {
    await t.control('POST', '/faults', { faults: [{ kind: 'endless-pages', method: 'GET', count: 0 }] });
    for (const page of [1, 7]) {
      const res = await t.call('GET', `/organizations/org/policies?page%5Bnumber%5D=${page}&page%5Bsize%5D=100`);
      assert.equal(res.json.meta.pagination['next-page'], page + 1);
      assert.match(res.json.links.next, new RegExp(`page%5Bnumber%5D=${page + 1}&`));
    }
  });

  it('duplicate-items: a page after the first starts with the last resources of the page before', async () => {
    for (const name of ['d-a', 'd-b', 'd-c', 'd-d']) await t.call('POST', '/organizations/org/policies', { body: policyBody(name, { 'enforcement-level': 'advisory' }) });
    await t.control('POST', '/faults', { faults: [{ kind: 'duplicate-items', method: 'GET', items: 1 }] });
    const names = async (page: number): Promise<string[]> =>
      (await t.call('GET', `/organizations/org/policies?search%5Bname%5D=d-&page%5Bnumber%5D=${page}&page%5Bsize%5D=2`)).json.data.map((p: { attributes: { name: string } }) => p.attributes.name);
    const first = await names(1);
    assert.equal(first.length, 2, 'a first page is answered as is');
    const second = await names(2);
    assert.deepEqual(second, [first[1], ...(await names(2))], 'the page before repeated once, then the page as it is');
  });

  it('duration-ms: every matching request fails from the first one it meets until the duration has passed', async () => {
    await t.control('POST', '/faults', { faults: [{ kind: 'status', status: 503, path: '^/agent-pools', 'duration-ms': 300 }] });
    const started = performance.now();
    let failed = 0;
    while ((await t.call('GET', '/agent-pools/apool-x')).status === 503) failed += 1;
    assert.ok(performance.now() - started >= 290, 'lasted its duration');
    assert.ok(failed >= 2, `${failed} requests failed`);
    assert.equal((await t.call('GET', '/agent-pools/apool-x')).status, 404, 'then spent');
  });
});

describe('emulator faults from the seed', () => {
  it('fires seeded faults in order', async () => {
    const t = await TestEmulator.start(
      orgSeed({ faults: [{ kind: 'status', path: '^/agent-pools', status: 500 }, { kind: 'status', status: 429, count: 1 }] }),
    );
    try {
      assert.equal((await t.call('GET', '/agent-pools/apool-x')).status, 500);
      assert.equal((await t.call('GET', '/agent-pools/apool-x')).status, 429, 'the second fault matches any path');
      assert.equal((await t.call('GET', '/agent-pools/apool-x')).status, 404);
    } finally {
      await t.close();
    }
  });
});

describe('emulator request log', () => {
  it('records every /api/v2 request answered or dropped, blob downloads with their own path, and not control calls', async () => {
    const t = await TestEmulator.start(orgSeed());
    try {
      const created = await t.call('POST', '/organizations/org/policies', { body: policyBody('logged', { 'enforcement-level': 'advisory' }) });
      const id = created.json.data.id;
      await t.call('PUT', `/policies/${id}/upload`, { raw: 'code', contentType: 'application/octet-stream' });
      const redirect = await t.call('GET', `/policies/${id}/download`);
      const blobPath = new URL(redirect.headers.get('location')!).pathname;
      await fetch(redirect.headers.get('location')!);
      await t.call('GET', '/organizations/org/policies?page[size]=100&search%5Bname%5D=log');
      await t.call('GET', '/organizations/org/policies', { token: 'bad' });
      await t.control('POST', '/faults', { faults: [{ kind: 'drop', path: '^/agents/' }] });
      await assert.rejects(t.call('GET', '/agents/agent-x'));

      const log = await t.control('GET', '/requests');
      const rows = log.json.requests as { method: string; path: string; status: number | null; 'content-type': string | null; at: string }[];
      assert.deepEqual(
        rows.map((r) => [r.method, r.path, r.status, r['content-type']]),
        [
          ['POST', '/organizations/org/policies', 200, 'application/vnd.api+json'],
          ['PUT', `/policies/${id}/upload`, 200, 'application/octet-stream'],
          ['GET', `/policies/${id}/download`, 302, null],
          ['GET', blobPath, 200, null],
          ['GET', '/organizations/org/policies?page[size]=100&search%5Bname%5D=log', 200, null],
          ['GET', '/organizations/org/policies', 401, null],
          ['GET', '/agents/agent-x', null, null],
        ],
      );
      for (const row of rows) assert.match(row.at, ISO_MS);
      await t.control('DELETE', '/requests');
      assert.deepEqual((await t.control('GET', '/requests')).json.requests, []);
    } finally {
      await t.close();
    }
  });

  it('keeps the most recent requests only, so a long-running emulator stays bounded', async () => {
    const t = await TestEmulator.start(orgSeed(), { requestLogLimit: 3 });
    try {
      for (let page = 1; page <= 10; page += 1) await t.call('GET', `/organizations/org/policies?page[number]=${page}`);
      const rows = (await t.control('GET', '/requests')).json.requests as { path: string }[];
      assert.deepEqual(rows.map((r) => r.path), [8, 9, 10].map((page) => `/organizations/org/policies?page[number]=${page}`));
    } finally {
      await t.close();
    }
  });
});
