import assert from 'node:assert/strict';
import { rename, symlink, truncate, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, afterEach, before, describe, it } from 'node:test';
import type { Policy } from '../src/api/types.js';
import { CodeChangedError } from '../src/errors.js';
import { codeAt, codeBody, readDeclared, type DeclaredPolicy } from '../src/declared/index.js';
import { startApiFixture, testSeed, type ApiFixture } from './helpers/api-fixture.js';
import { useTempTrees } from './helpers/temp-tree.js';
import { VirtualClock } from './helpers/virtual-clock.js';

/** Code of `size` bytes with a byte order mark, CRLF line ends and non-ASCII text; a different last line per `tag`. */
function codeOfSize(size: number, tag = 'a'): Buffer {
  const head = Buffer.from('\uFEFF# règle\r\n');
  const tail = Buffer.from(`main = rule { "${tag}" }\r\n`);
  return Buffer.concat([head, Buffer.alloc(size - head.length - tail.length, '# filler — ligne\r\n'), tail]);
}

async function collect(chunks: AsyncIterable<Uint8Array>): Promise<{ sent: Buffer[]; error: unknown }> {
  const sent: Buffer[] = [];
  try {
    for await (const chunk of chunks) sent.push(Buffer.from(chunk));
    return { sent, error: null };
  } catch (error) {
    return { sent, error };
  }
}

describe('an upload sends the code as it reads it, and only the bytes that were read and validated', () => {
  const tree = useTempTrees('code-upload-');

  async function declared(files: Record<string, Buffer | string>): Promise<{ dir: string; policies: Map<string, DeclaredPolicy> }> {
    const dir = await tree(files);
    return { dir, policies: new Map((await readDeclared(dir)).policies.map((p) => [p.name, p])) };
  }

  it('yields the bytes in chunks of the size asked, the last one only once all of them proved to be those read', async () => {
    const bytes = codeOfSize(1000);
    const { policies } = await declared({ 'policies/p.native': bytes });
    const body = codeBody(codeAt(policies.get('p')!), 64);
    assert.equal(body.length, 1000);
    for (let run = 0; run < 2; run += 1) {
      const { sent, error } = await collect(body.chunks());
      assert.equal(error, null);
      assert.deepEqual(sent.map((c) => c.length), [...Array(15).fill(64), 40], 'read again for each try');
      assert.deepEqual(Buffer.concat(sent), bytes);
    }
  });

  it('a file changed, grown, cut or swapped for a link since it was read fails before its last chunk', async () => {
    const bytes = codeOfSize(1000);
    const { dir, policies } = await declared({
      'policies/last-byte.native': bytes, 'policies/first-byte.native': bytes, 'policies/grown.native': bytes,
      'policies/cut.native': bytes, 'policies/linked.native': bytes,
    });
    const outside = await tree({ 'outside.native': bytes });
    const file = (name: string) => path.join(dir, 'policies', `${name}.native`);
    await writeFile(file('last-byte'), codeOfSize(1000, 'b'));
    await writeFile(file('first-byte'), Buffer.concat([Buffer.from('#'), bytes.subarray(1)]));
    await writeFile(file('grown'), Buffer.concat([bytes, Buffer.from('\n')]));
    await truncate(file('cut'), 999);
    await symlink(path.join(outside, 'outside.native'), file('link'));
    await rename(file('link'), file('linked'));
    for (const name of ['last-byte', 'first-byte', 'grown', 'cut', 'linked']) {
      const { sent, error } = await collect(codeBody(codeAt(policies.get(name)!), 64).chunks());
      assert.ok(error instanceof CodeChangedError, `${name}: ${String(error)}`);
      assert.match(error.message, new RegExp(`^policies/${name}\\.native changed since it was read and validated`));
      assert.ok(Buffer.concat(sent).length < 1000, `${name}: never all of it`);
    }
    const linked = await collect(codeBody(codeAt(policies.get('linked')!), 64).chunks());
    assert.match(String(linked.error), /\(it resolves outside the source root/);
    assert.deepEqual(linked.sent, [], 'nothing read through the link');
  });

  describe('through the client to the emulator', () => {
    let f: ApiFixture;
    let policy: Policy;
    const clock = new VirtualClock({ autoAdvance: true });
    before(async () => {
      f = await startApiFixture(testSeed(), { clock });
      policy = await f.client.createPolicy('acme', {
        name: 'streamed', kind: 'native', description: null, enforcementLevel: 'advisory', query: null, policySetIds: [],
      });
      await f.emulator.clearRequests();
    });
    afterEach(async () => {
      await f.emulator.clearFaults();
      await f.emulator.clearRequests();
    });
    after(async () => { await f.close(); });

    const liveCode = async () => (await f.emulator.policies('acme')).find((p) => p.name === 'streamed')?.code;

    it('a file of several chunks arrives byte for byte, mark and line ends included', async () => {
      const bytes = codeOfSize(700_000);
      const { policies } = await declared({ 'policies/streamed.native': bytes });
      const uploaded = await f.client.uploadPolicy(policy.id, codeBody(codeAt(policies.get('streamed')!)));
      assert.equal(uploaded?.id, policy.id);
      assert.equal(await liveCode(), bytes.toString('utf8'));
      assert.deepEqual((await f.emulator.writes()).map((r) => [r.method, r.status]), [['PUT', 200]]);
    });

    it('a body answered 500 is read and sent again', async () => {
      const bytes = codeOfSize(300_000, 'again');
      const { policies } = await declared({ 'policies/streamed.native': bytes });
      await f.emulator.addFaults({ kind: 'status', method: 'PUT', path: '/upload$', status: 500, count: 1 });
      await f.client.uploadPolicy(policy.id, codeBody(codeAt(policies.get('streamed')!)));
      assert.equal(await liveCode(), bytes.toString('utf8'));
      assert.deepEqual((await f.emulator.writes()).map((r) => [r.method, r.status]), [['PUT', 500], ['PUT', 200]]);
    });

    it('code changed after it was read is refused with CodeChangedError, not retried, and the old code stays', async () => {
      const before = await liveCode();
      assert.ok(before !== null && before !== undefined);
      const bytes = codeOfSize(700_000, 'read');
      const { dir, policies } = await declared({ 'policies/streamed.native': bytes });
      // Changed at its end: most of the body has gone out when the difference shows.
      await writeFile(path.join(dir, 'policies/streamed.native'), codeOfSize(700_000, 'edit'));
      const retries = f.client.stats().retries;
      const error = await f.client.uploadPolicy(policy.id, codeBody(codeAt(policies.get('streamed')!))).then(() => assert.fail('expected a refusal'), (e: unknown) => e);
      assert.ok(error instanceof CodeChangedError, String(error));
      assert.equal(await liveCode(), before);
      assert.equal(f.client.stats().retries, retries);
      assert.ok((await f.emulator.writes()).every((r) => r.status !== 200), 'no upload completed');
    });
  });
});
