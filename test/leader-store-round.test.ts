/**
 * A round of the etcd store ends with its signal: an etcd that takes the connection and never answers cannot hold the
 * election past the round's time limit. No etcd is needed: a loopback server that never answers stands in for a hung
 * member (the store against a real etcd: leader-etcd-store.test.ts, in the end-to-end tier).
 */
import assert from 'node:assert/strict';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import { test } from 'node:test';
import { etcdLeaseStore } from '../src/leader/index.js';

test('an etcd request ends when the round\'s signal aborts, naming the endpoint', { timeout: 30_000 }, async (t) => {
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const store = etcdLeaseStore([endpoint], 'round');
  t.after(async () => {
    await store.close();
    for (const socket of sockets) socket.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  const round = new AbortController();
  const read = store.get(round.signal).then(() => assert.fail('answered'), (e: unknown) => e);
  while (sockets.size === 0) await new Promise((resolve) => setImmediate(resolve));
  round.abort(new Error('the round is over'));
  const error = await read;
  assert.ok(error instanceof Error);
  assert.match(error.message, new RegExp(`etcd ${endpoint.replace(/\./g, '\\.')} did not answer in time \\(leader-election\\.endpoints\\)`));
});

test('with several endpoints, each one\'s share of a round still ends with the round', { timeout: 30_000 }, async (t) => {
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  // Two endpoints that never answer, each given far longer than the round: the round's end must end the request.
  const store = etcdLeaseStore([endpoint, `${endpoint}/`], 'round', { endpointTimeoutMs: 600_000 });
  t.after(async () => {
    await store.close();
    for (const socket of sockets) socket.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  const round = new AbortController();
  const read = store.get(round.signal).then(() => assert.fail('answered'), (e: unknown) => e);
  while (sockets.size === 0) await new Promise((resolve) => setImmediate(resolve));
  round.abort(new Error('the round is over'));
  const error = await read;
  assert.ok(error instanceof Error);
  assert.match(error.message, /did not answer in time \(leader-election\.endpoints\)/);
});
