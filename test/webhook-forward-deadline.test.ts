/**
 * A standby's hand-over of a webhook delivery to the leader is bounded: a leader that accepts and never answers, or
 * answers and never ends, ends the forward at its deadline (5 s, on a virtual clock); an answer is read only up to its
 * cap, however long the leader goes on; the unspecified address `[::]` is never a leader's.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, it, type TestContext } from 'node:test';
import { forwardAddressProblem, forwardDelivery, type Forwarded } from '../src/server/webhook-forward.js';
import { VirtualClock } from './helpers/virtual-clock.js';

/** A leader on a loopback port that does what `answer` does with each delivery. */
async function leader(t: TestContext, answer: (req: IncomingMessage, res: ServerResponse) => void): Promise<{ server: Server; address: string }> {
  const server = createServer(answer);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  t.after(() => {
    server.closeAllConnections();
    server.close();
  });
  return { server, address: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

const delivery = (address: string, clock?: VirtualClock) => ({
  address, headers: { 'content-type': 'application/json', 'x-github-event': 'push' }, rawBody: Buffer.from('{"ref":"refs/heads/main"}'),
  secret: 'webhook-Secret-of-the-test', from: 'standby-1', leader: 'leader-0', allowLoopback: true,
  ...(clock === undefined ? {} : { sleep: (ms: number, signal: AbortSignal) => clock.sleep(ms, signal) }),
});

/** Whether `promise` has settled, after the turns the event loop has queued now. */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  void promise.then(() => (done = true), () => (done = true));
  for (let i = 0; i < 5; i += 1) await new Promise((turn) => setImmediate(turn));
  return done;
}

describe('a standby hands a delivery to the leader within a bound', () => {
  it('a leader that never answers: the forward ends at 5 s, not before, saying so', { timeout: 30_000 }, async (t) => {
    const silent = await leader(t, () => undefined);
    const clock = new VirtualClock();
    const forwarding = forwardDelivery(delivery(silent.address, clock));
    await once(silent.server, 'request');
    await clock.advance(4_999);
    assert.equal(await settled(forwarding), false, 'still waiting before its deadline');
    await clock.advance(1);
    assert.deepEqual(await forwarding, { failed: 'the leader did not answer: no answer within 5 s' } satisfies Forwarded);
  });

  it('a leader that answers and never ends its answer: the same deadline ends the read', { timeout: 30_000 }, async (t) => {
    const trickling = await leader(t, (_req, res) => {
      res.writeHead(202, { 'content-type': 'application/json' });
      res.write('{"accepted":');
    });
    const clock = new VirtualClock();
    const forwarding = forwardDelivery(delivery(trickling.address, clock));
    await once(trickling.server, 'request');
    await clock.advance(5_000);
    assert.deepEqual(await forwarding, { failed: 'the leader did not answer: no answer within 5 s' } satisfies Forwarded);
  });

  it('an answer is read only up to its cap, however long the leader goes on', { timeout: 30_000 }, async (t) => {
    let written = 0;
    const endless = await leader(t, (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      const more = () => {
        while (res.write('x'.repeat(16_384))) written += 16_384;
        written += 16_384;
        res.once('drain', more);
      };
      more();
    });
    const forwarded = await forwardDelivery(delivery(endless.address));
    assert.deepEqual(forwarded, { answered: { status: 200, body: { handedTo: 'leader-0' } } });
    assert.ok(written >= 64 * 1024, 'the leader wrote past the cap');
  });

  it('the unspecified address [::] is never a leader\'s, loopback allowed or not', () => {
    for (const allowLoopback of [true, false]) {
      assert.equal(forwardAddressProblem('http://[::]:9090', allowLoopback), 'it is a link-local, unspecified or metadata address');
    }
  });
});
