import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { Policy } from '../src/api/types.js';
import { codeDigest, createCodeScan } from '../src/code-content.js';
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

function scanInChunks(text: string, size: number): string {
  const bytes = Buffer.from(text, 'utf8');
  const scan = createCodeScan();
  for (let at = 0; at < bytes.length; at += size) scan.update(bytes.subarray(at, at + size));
  return scan.finish().codeDigest;
}

describe('code scanned as it streams', () => {
  it('gives codeDigest of the text, however the bytes are cut (a CR LF, a mark or a character split across chunks)', () => {
    for (const text of [...SAMPLES, '\uFEFF\uFEFFtwo marks\n']) {
      const expected = codeDigest(text);
      for (const size of [1, 2, 3, 7, 1024]) assert.equal(scanInChunks(text, size), expected, `${JSON.stringify(text)} in chunks of ${size}`);
    }
  });

  it('drops one leading byte order mark, never two', () => {
    assert.equal(codeDigest('\uFEFFx\n'), codeDigest('x\n'));
    const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');
    assert.equal(codeDigest('\uFEFF\uFEFFx\n'), sha256('\uFEFFx\n'), 'the second mark is part of the code');
    assert.notEqual(codeDigest('\uFEFF\uFEFFx\n'), codeDigest('x\n'));
  });

  it('tells bytes that are not UTF-8', () => {
    const scan = createCodeScan();
    scan.update(Buffer.from([0x61, 0xff, 0x62]));
    assert.equal(scan.finish().utf8, false);
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
