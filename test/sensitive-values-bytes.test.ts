/**
 * What a sensitive value is, byte for byte, as `declared/sensitive-values.ts` reads it for the upload: a value file
 * without one trailing line end (only one), an empty variable refused, a link inside the allowed folder to a file the
 * tool never lets a parameter read refused, and never a byte beyond the cap, even from a file grown since its size was
 * read; the allowed folder's parent (`..`) is outside it.
 */
import assert from 'node:assert/strict';
import { openSync, closeSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import type { ParameterAllowance } from '../src/config/types.js';
import { MAX_PARAMETER_FILE_BYTES, readSensitive, valueWithin, type Read } from '../src/declared/sensitive-values.js';
import { useTempTrees } from './helpers/temp-tree.js';

describe('a sensitive value, byte for byte', () => {
  const dirOf = useTempTrees();

  function allowing(files: string, reserved: string[] = []): ParameterAllowance {
    return { env: ['PPS_VALUE_*'], files, reserved: { env: [], files: reserved } };
  }
  const read = (from: string, allowance: ParameterAllowance, env: NodeJS.ProcessEnv = {}): Read => readSensitive(from, { env, allowance, realRoot: null });

  it('a value file loses one trailing line end, \\n or \\r\\n, and only one', async () => {
    const dir = await dirOf({ lf: 'v1\n', crlf: 'v2\r\n', two: 'v3\n\n', twoCrlf: 'v4\r\n\r\n', none: 'v5', inner: 'a\nb\n', spaces: ' v6 \n' });
    const allowance = allowing(dir);
    const values = Object.fromEntries(['lf', 'crlf', 'two', 'twoCrlf', 'none', 'inner', 'spaces'].map((name) => [name, read(`file:${name}`, allowance)]));
    assert.deepEqual(values, {
      lf: { value: 'v1' }, crlf: { value: 'v2' }, two: { value: 'v3\n' }, twoCrlf: { value: 'v4\r\n' }, none: { value: 'v5' }, inner: { value: 'a\nb' }, spaces: { value: ' v6 ' },
    });
  });

  it('an empty variable is refused as one not set; a set one is its value exactly', async () => {
    const allowance = allowing(await dirOf({}));
    assert.deepEqual(read('env:PPS_VALUE_EMPTY', allowance, { PPS_VALUE_EMPTY: '' }), { problem: 'the environment variable PPS_VALUE_EMPTY is not set' });
    assert.deepEqual(read('env:PPS_VALUE_SET', allowance, { PPS_VALUE_SET: ' x\n' }), { value: ' x\n' });
  });

  it('a link inside the allowed folder to a file the tool never lets a parameter read (its token file there) is refused', async () => {
    const dir = await dirOf({ 'api-token': 'the-Token-of-the-tool\n', value: { symlink: 'api-token' } });
    const allowance = allowing(dir, [path.join(dir, 'api-token')]);
    assert.deepEqual(read('file:api-token', allowance), { problem: 'its file is one this tool never lets a parameter read' });
    assert.deepEqual(read('file:value', allowance), { problem: 'its file leads to a file this tool never lets a parameter read' });
  });

  it('the allowed folder\'s parent, `..` itself, is outside it', async () => {
    const dir = await dirOf({ 'sub/key': 'k\n' });
    const allowance = allowing(path.join(dir, 'sub'));
    assert.deepEqual(read('file:..', allowance), { problem: 'its file is outside the folder the operator allows (--parameter-files)' });
    assert.deepEqual(read('file:key', allowance), { value: 'k' });
  });

  it('a file grown past the cap since its size was read is refused, never read beyond the cap', async () => {
    const dir = await dirOf({});
    const file = path.join(dir, 'grown');
    writeFileSync(file, 'z'.repeat(MAX_PARAMETER_FILE_BYTES + 10));
    const fd = openSync(file, 'r');
    try {
      // Its size as it was when looked at, before it grew.
      assert.deepEqual(valueWithin(fd, 10), { problem: `holds more than ${MAX_PARAMETER_FILE_BYTES} bytes` });
    } finally {
      closeSync(fd);
    }
    writeFileSync(file, 'z'.repeat(MAX_PARAMETER_FILE_BYTES));
    const exact = openSync(file, 'r');
    try {
      const within = valueWithin(exact, 10);
      assert.ok('value' in within && within.value?.length === MAX_PARAMETER_FILE_BYTES, 'exactly the cap is read whole, whatever size was seen');
    } finally {
      closeSync(exact);
    }
  });
});
