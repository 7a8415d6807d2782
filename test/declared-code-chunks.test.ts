import assert from 'node:assert/strict';
import { isUtf8 } from 'node:buffer';
import { createHash } from 'node:crypto';
import { realpathSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { codeDigest } from '../src/code-content.js';
import { MAX_CODE_BYTES } from '../src/model.js';
import { readDeclared, type DeclaredPolicy } from '../src/declared/index.js';
import { readCodeFile } from '../src/declared/read-code.js';
import { lineCount } from './helpers/line-count.js';
import { problemFor, problemsOf } from './helpers/declared-problems.js';
import { useTempTrees } from './helpers/temp-tree.js';

/** Code is read through a buffer of 1 MiB: a file larger than that arrives in chunks. */
const CHUNK = 1 << 20;

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

/** What a read of the code must find, from the whole bytes: the planner's digest of the text, the lines, the raw digest. */
function expected(bytes: Buffer) {
  return { codeDigest: codeDigest(bytes.toString('utf8')), codeLines: lineCount(bytes), fileSha256: sha256(bytes), size: bytes.length };
}

describe('policy code larger than the read buffer is read in chunks', () => {
  const tree = useTempTrees('code-chunks-');

  /** Reads `policies/<name>.native` holding `bytes` through a buffer of `bufferBytes`. */
  async function readThrough(bytes: Buffer, bufferBytes: number) {
    const root = realpathSync(await tree({ 'policies/code.native': bytes }));
    const abs = path.join(root, 'policies', 'code.native');
    const file = { rel: 'policies/code.native', abs, real: abs, size: bytes.length, stamp: '' };
    return readCodeFile(file, root, Buffer.alloc(bufferBytes));
  }

  async function policyOf(bytes: Buffer): Promise<DeclaredPolicy> {
    const declared = await readDeclared(await tree({ 'policies/big.native': bytes }));
    return declared.policies[0] as DeclaredPolicy;
  }

  it('gives the digest and lines of the whole text however the chunks cut CRLF, CR, a byte order mark and multi-byte characters', async () => {
    const text = '\uFEFF# règle — 規則 🙂\r\nmain = rule {\r\r\n  "é" is "é"\r\n}\rlast 😀 line\r';
    for (const bytes of [Buffer.from(text), Buffer.from(text.slice(1)), Buffer.from(`${text}\n tail`)]) {
      for (let size = 1; size <= 24; size += 1) {
        const read = await readThrough(bytes, size);
        assert.ok('codeDigest' in read, `buffer of ${size}: ${JSON.stringify(read)}`);
        const { codeDigest: digest, codeLines, source } = read;
        assert.deepEqual({ codeDigest: digest, codeLines, fileSha256: source.fileSha256, size: source.size }, expected(bytes), `buffer of ${size}`);
      }
    }
  });

  it('a CRLF that the 1 MiB buffer cuts ends one line, and a character it cuts is kept whole', async () => {
    // CR is the last byte of the first chunk, LF the first of the second; an emoji straddles the second boundary.
    const bytes = Buffer.concat([
      Buffer.alloc(CHUNK - 1, 'a'), Buffer.from('\r\n'), Buffer.alloc(CHUNK - 3, 'b'), Buffer.from('😀\r\nmain = rule { true }\r\n'),
    ]);
    assert.equal(bytes[CHUNK - 1], 0x0d);
    assert.equal(bytes[CHUNK], 0x0a);
    assert.equal(bytes.subarray(2 * CHUNK - 2, 2 * CHUNK + 2).toString(), '😀');
    const policy = await policyOf(bytes);
    const want = expected(bytes);
    assert.deepEqual(
      { codeDigest: policy.codeDigest, codeLines: policy.codeLines, fileSha256: policy.codeSource.fileSha256, size: policy.codeSource.size },
      want,
    );
    assert.equal(policy.codeLines, 3);
  });

  it('a byte order mark is dropped from the digest only, in a file of several chunks', async () => {
    const bytes = Buffer.concat([Buffer.from('\uFEFF# marked\r\n'), Buffer.alloc(CHUNK + 100, 'x'), Buffer.from('\r\nmain = rule { true }\n')]);
    const policy = await policyOf(bytes);
    assert.equal(policy.codeDigest, codeDigest(bytes.subarray(3).toString('utf8')));
    assert.equal(policy.codeDigest, codeDigest(bytes.toString('utf8')));
    assert.equal(policy.codeSource.fileSha256, sha256(bytes), 'the upload sends the mark');
    assert.equal(policy.codeLines, 3);
  });

  it('bytes that are not UTF-8 after the first chunk are a problem naming the file', async () => {
    const bytes = Buffer.concat([Buffer.alloc(CHUNK + 10, 'a'), Buffer.from([0xc3, 0x28]), Buffer.from('\nmain = rule { true }\n')]);
    const problems = await problemsOf(readDeclared(await tree({ 'policies/bad.native': bytes, 'policies/good.native': 'main = rule { true }\n' })));
    assert.equal(problemFor(problems, 'policies/bad.native').message, 'is not valid UTF-8 text');
    assert.equal(problems.length, 1);
  });

  it('a character cut and never completed, or completed wrongly, is not UTF-8 wherever the chunks end', async () => {
    const cases = [
      Buffer.from([0x61, 0x62, 0xe2, 0x82]), // cut by the end of the file
      Buffer.from([0x61, 0xe2, 0x82, 0x61, 0x62]), // three-byte character with two
      Buffer.from([0x61, 0x62, 0x80, 0x61]), // continuation byte with no start
      Buffer.from([0x61, 0xed, 0xa0, 0x80, 0x61]), // an encoded surrogate
      Buffer.from([0x61, 0xf0, 0x82, 0x82, 0xac]), // overlong
      Buffer.from([0x61, 0xf4, 0x90, 0x80, 0x80]), // beyond U+10FFFF
      Buffer.from([0x61, 0xc0, 0xaf, 0x62]), // overlong slash
      Buffer.from([0x61, 0x62, 0x63, 0xff]),
    ];
    for (const bytes of cases) {
      assert.equal(isUtf8(bytes), false);
      for (let size = 1; size <= 6; size += 1) {
        const read = await readThrough(bytes, size);
        assert.deepEqual(read, { problem: { file: 'policies/code.native', message: 'is not valid UTF-8 text' } }, `${bytes.toString('hex')} through ${size}`);
      }
    }
  });

  it('a file of a byte order mark alone, or empty, reads as the whole file does', async () => {
    for (const bytes of [Buffer.from('\uFEFF'), Buffer.from('\uFEFF\r'), Buffer.alloc(0), Buffer.from('\r'), Buffer.from('\n\r')]) {
      for (const size of [1, 2, 3, 4, 16]) {
        const read = await readThrough(bytes, size);
        assert.ok('codeDigest' in read, JSON.stringify(read));
        assert.deepEqual({ codeDigest: read.codeDigest, codeLines: read.codeLines, fileSha256: read.source.fileSha256, size: read.source.size }, expected(bytes));
        assert.equal(read.empty, bytes.length === 0);
      }
    }
  });

  it('code the walk found over 10 MiB is refused unread: not a byte is read, even when the file is smaller by then', async () => {
    const root = realpathSync(await tree({ 'policies/code.native': 'main = rule { true }\n' }));
    const abs = path.join(root, 'policies', 'code.native');
    const file = { rel: 'policies/code.native', abs, real: abs, size: MAX_CODE_BYTES + 1, stamp: '' };
    let read = 0;
    const result = readCodeFile(file, root, Buffer.alloc(CHUNK), (chunk) => void (read += chunk.length));
    assert.equal(read, 0, 'nothing of it was read');
    assert.ok('problem' in result, JSON.stringify(result));
  });
});
