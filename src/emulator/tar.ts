/**
 * Reading a `tar.gz` as the service ingests a policy set version: gunzip, then the tar's 512-byte headers (ustar, with
 * pax `path` records and GNU long names). Only what ingestion needs: each entry's normalised path and, for regular
 * files, its bytes. An entry that leaves the archive's root (an absolute path, a `..`) makes the whole archive invalid.
 */
import { posix } from 'node:path';
import { gunzipSync } from 'node:zlib';

export interface TarEntry {
  path: string;
  type: 'file' | 'directory' | 'link' | 'other';
  data: Buffer;
}

const BLOCK = 512;

/** Throws an Error whose message says what is wrong with the archive. */
export function readTarGz(archive: Buffer): TarEntry[] {
  let tar: Buffer;
  try {
    tar = gunzipSync(archive);
  } catch {
    throw new Error('the archive is not gzip-compressed');
  }
  return readTar(tar);
}

function readTar(tar: Buffer): TarEntry[] {
  const entries: TarEntry[] = [];
  let offset = 0;
  let longName: string | null = null;
  while (offset + BLOCK <= tar.length) {
    const header = tar.subarray(offset, offset + BLOCK);
    if (header.every((byte) => byte === 0)) break;
    if (!checksumMatches(header)) throw new Error(`the archive is not a tar file (bad header checksum at byte ${offset})`);
    const size = octal(header.subarray(124, 136));
    const flag = String.fromCharCode(header[156] ?? 0);
    const data = tar.subarray(offset + BLOCK, offset + BLOCK + size);
    offset += BLOCK + Math.ceil(size / BLOCK) * BLOCK;
    if (flag === 'x') {
      longName = paxPath(data) ?? longName;
      continue;
    }
    if (flag === 'L') {
      longName = text(data);
      continue;
    }
    if (flag === 'g') continue;
    const prefix = text(header.subarray(345, 500));
    const name = longName ?? (prefix === '' ? text(header.subarray(0, 100)) : `${prefix}/${text(header.subarray(0, 100))}`);
    longName = null;
    entries.push({ path: entryPath(name), type: entryType(flag), data: Buffer.from(data) });
  }
  return entries;
}

function entryType(flag: string): TarEntry['type'] {
  if (flag === '0' || flag === '\0' || flag === '7') return 'file';
  if (flag === '5') return 'directory';
  return flag === '1' || flag === '2' ? 'link' : 'other';
}

/** `./a/b/` → `a/b`; refuses a path that leaves the root. */
function entryPath(name: string): string {
  if (name.startsWith('/')) throw new Error(`the archive entry "${name}" is an absolute path`);
  const normal = posix.normalize(name).replace(/\/+$/, '');
  if (normal === '..' || normal.startsWith('../')) throw new Error(`the archive entry "${name}" leaves the archive's root`);
  return normal === '.' ? '' : normal.replace(/^\.\//, '');
}

function text(bytes: Buffer): string {
  const end = bytes.indexOf(0);
  return bytes.subarray(0, end === -1 ? bytes.length : end).toString('utf8');
}

function octal(bytes: Buffer): number {
  const digits = text(bytes).trim();
  return digits === '' ? 0 : Number.parseInt(digits, 8);
}

function checksumMatches(header: Buffer): boolean {
  let sum = 0;
  for (let i = 0; i < BLOCK; i += 1) sum += i >= 148 && i < 156 ? 32 : (header[i] ?? 0);
  return octal(header.subarray(148, 156)) === sum;
}

/** The `path` record of a pax extended header: `<length> path=<value>\n`. */
function paxPath(data: Buffer): string | null {
  for (const line of data.toString('utf8').split('\n')) {
    const match = /^\d+ path=(.*)$/.exec(line);
    if (match !== null) return match[1] ?? null;
  }
  return null;
}
