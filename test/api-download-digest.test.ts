import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createCodeHasher } from '../src/code-hasher.js';
import type { Policy } from '../src/api/types.js';
import { codeDigest } from '../src/code-digest.js';
import { startApiFixture, type ApiFixture } from './helpers/api-fixture.js';

const SAMPLES = [
  '',
  'main = rule { true }\n',
  'import "tfplan/v2"\r\nmain = rule { true } # ünïcode ✓\r\n',
  'lone\rcarriage\rreturns\r',
  '\uFEFFwith a byte order mark\r\n',
  'ends with CR\r',
  '\uFEFF',
  'a\n\n',
  'no final line end',
];

function hashInChunks(text: string, size: number, ignoreBOM = false): string {
  const bytes = Buffer.from(text, 'utf8');
  const hasher = createCodeHasher({ ignoreBOM });
  for (let at = 0; at < bytes.length; at += size) hasher.update(bytes.subarray(at, at + size));
  return hasher.digest();
}

describe('code hashed as it streams', () => {
  it('gives codeDigest of the text, however the bytes are cut (a CR LF or a character split across chunks)', () => {
    for (const text of SAMPLES) {
      const decoded = new TextDecoder().decode(Buffer.from(text, 'utf8'));
      const expected = codeDigest(decoded);
      for (const size of [1, 2, 3, 7, 1024]) {
        assert.equal(hashInChunks(text, size), expected, `${JSON.stringify(text)} in chunks of ${size}`);
        // As the declared repo reads a file: the decoder keeps the mark, the digest drops it.
        assert.equal(hashInChunks(text, size, true), codeDigest(text));
      }
    }
  });

  it('refuses bytes that are not UTF-8 when fatal', () => {
    const hasher = createCodeHasher({ fatal: true });
    assert.throws(() => {
      hasher.update(Buffer.from([0x61, 0xff, 0x62]));
      hasher.digest();
    }, TypeError);
  });
});

describe('downloads hashed as they stream', () => {
  let f: ApiFixture;
  before(async () => { f = await startApiFixture(); });
  after(async () => { await f.close(); });

  async function policyWith(name: string, code: string | null): Promise<Policy> {
    const created = await f.client.createPolicy('acme', {
      name, kind: 'native', description: null, enforcementLevel: 'advisory', query: null, policySetIds: [],
    });
    if (code !== null) {
      const response = await fetch(`${f.emulator.url}/policies/${created.id}/upload`, {
        method: 'PUT', body: code, headers: { authorization: `Bearer ${f.emulator.token}`, 'content-type': 'application/octet-stream' },
      });
      assert.equal(response.status, 200);
    }
    return f.client.getPolicy(created.id);
  }

  it('the digest equals that of the downloaded text; the text is kept up to the size asked', async () => {
    const code = 'import "tfplan/v2"\r\nmain = rule { true } # ünïcode ✓\n';
    const policy = await policyWith('streamed', code);
    const text = await f.client.downloadPolicy(policy);
    assert.equal(text, code);
    assert.deepEqual(await f.client.downloadPolicyDigest(policy, 1024), { digest: codeDigest(code), text: code });
    assert.deepEqual(await f.client.downloadPolicyDigest(policy, 10), { digest: codeDigest(code), text: null });
  });

  it('a large download is hashed without being kept', async () => {
    const code = 'x = 1\r\n'.repeat(300_000);
    const policy = await policyWith('large', code);
    assert.deepEqual(await f.client.downloadPolicyDigest(policy, 1024), { digest: codeDigest(code), text: null });
  });

  it('a policy without code answers null', async () => {
    assert.equal(await f.client.downloadPolicyDigest(await policyWith('no-code', null), 1024), null);
  });
});
