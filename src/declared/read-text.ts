import { readFile } from 'node:fs/promises';
import { MAX_CODE_BYTES } from '../model.js';
import type { SourceProblem } from '../errors.js';
import type { FoundFile } from './walk.js';

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** Reads a file as UTF-8 text, byte for byte (line ends and a byte order mark are kept), or says why it cannot. */
export async function readText(file: FoundFile): Promise<{ text: string } | { problem: SourceProblem }> {
  let bytes: Buffer;
  try {
    bytes = await readFile(file.abs);
  } catch (error) {
    return { problem: { file: file.rel, message: `cannot be read (${(error as NodeJS.ErrnoException).code ?? String(error)})` } };
  }
  try {
    return { text: utf8.decode(bytes) };
  } catch {
    return { problem: { file: file.rel, message: 'is not valid UTF-8 text' } };
  }
}

/** Reads policy code after checking its size from the directory entry, so an oversized file is never loaded. */
export async function readCode(file: FoundFile): Promise<{ text: string } | { problem: SourceProblem }> {
  if (file.size > MAX_CODE_BYTES) {
    const message = `is ${file.size} bytes; policy code may be at most ${MAX_CODE_BYTES} bytes (10 MiB)`;
    return { problem: { file: file.rel, message } };
  }
  return readText(file);
}
