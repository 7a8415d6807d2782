import type { SourceProblem } from '../errors.js';

/**
 * The first line of a Git LFS pointer (https://github.com/git-lfs/git-lfs/blob/main/docs/spec.md); the
 * `hawser` one is the spec's older name. A pointer is under 1024 bytes.
 */
const POINTER_START = /^version https:\/\/(git-lfs|hawser)\.github\.com\/spec\/v\d+\r?\n/;
export const MAX_POINTER_BYTES = 1024;
/** Bytes of a file's start enough to tell a pointer. */
export const POINTER_HEAD_BYTES = 64;

/**
 * A problem when `head` (the first bytes of a file of `size` bytes) is a Git LFS pointer: a checkout without
 * git-lfs (or one that did not fetch the LFS objects) holds the pointer text in place of the file.
 */
export function lfsPointerProblem(rel: string, head: Uint8Array | string, size: number): SourceProblem | null {
  if (size > MAX_POINTER_BYTES) return null;
  const text = typeof head === 'string' ? head.slice(0, POINTER_HEAD_BYTES) : Buffer.from(head.subarray(0, POINTER_HEAD_BYTES)).toString('latin1');
  if (!POINTER_START.test(text)) return null;
  const message = 'is a Git LFS pointer, not the file: fetch the LFS objects (git lfs install && git lfs pull), or stop tracking this path with LFS in .gitattributes';
  return { file: rel, message };
}
