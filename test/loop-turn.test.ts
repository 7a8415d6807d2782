import assert from 'node:assert/strict';
import { stat } from 'node:fs/promises';
import { createServer, connect, type AddressInfo, type Socket } from 'node:net';
import { once } from 'node:events';
import { test, type TestContext } from 'node:test';
import { loopTurn } from '../src/loop-turn.js';

/** A loopback connection: the client's end, and the server's, reading. */
async function connection(t: TestContext): Promise<{ client: Socket; server: Socket }> {
  const listener = createServer();
  listener.listen(0, '127.0.0.1');
  await once(listener, 'listening');
  const accepted = once(listener, 'connection') as Promise<[Socket]>;
  const client = connect((listener.address() as AddressInfo).port, '127.0.0.1');
  await once(client, 'connect');
  const [server] = await accepted;
  t.after(() => {
    client.destroy();
    server.destroy();
    listener.close();
  });
  return { client, server };
}

test('a loop turn lets in the I/O that became ready while it was asked, even when asked from an I/O callback', async (t) => {
  const { client, server } = await connection(t);
  let received = '';
  server.on('data', (chunk: Buffer) => (received += chunk.toString()));
  for (const n of [1, 2, 3]) {
    // Asked from an I/O callback's continuation (a file system answer): one setImmediate would resume in this very
    // turn's check phase, before the loop polls again for what the client has just sent.
    await stat('.');
    client.write(`${n};`);
    await loopTurn();
    assert.ok(received.includes(`${n};`), `chunk ${n} was read before the turn ended (read so far: ${JSON.stringify(received)})`);
  }
});

test('a loop turn asked from a check phase lets the I/O in too', async (t) => {
  const { client, server } = await connection(t);
  let received = '';
  server.on('data', (chunk: Buffer) => (received += chunk.toString()));
  await new Promise<void>((resolve) => setImmediate(resolve));
  client.write('x');
  await loopTurn();
  assert.equal(received, 'x');
});
