import { once } from 'node:events';
import { closeSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { createGzip } from 'node:zlib';
import tar from 'tar-stream';
import { createCodeScan } from '../code-content.js';
import type { SourceProblem } from '../errors.js';
import { isInside } from '../path-inside.js';
import { fillFrom, openSourceFile } from './read-file.js';
import { turnTaker } from './turns.js';
import { byCodeUnit } from '../order.js';

/** One file of a versioned policy set's folder, to be packed: where it is read, and its path in the archive. */
export interface ArchiveFile {
  /** Relative to the set's folder, with `/` separators: its name in the archive. */
  path: string;
  /** Relative to the source root (shown in problems). */
  rel: string;
  /** The path it is read by, and its real path (resolved by the walk, or just before the packing). */
  abs: string;
  real: string;
  /** Its size when it was listed: what the estimate counted. */
  size: number;
}

/** A packed set folder: the gzipped archive, the digest of its content, and each file's digest. */
export interface SetArchive {
  gzip: Buffer;
  /**
   * sha256 (hex) of the set's content: one line `<sha256>  <path>\n` per file, sorted by path, where a UTF-8 file's
   * digest is of its text with line ends normalised (code-content.ts), as a policy's code is compared, and any other
   * file's of its bytes. A checkout with `core.autocrlf=true` and one without give the same digest; the archive holds
   * the bytes as they are.
   */
  digest: string;
  files: Array<{ path: string; sha256: string; size: number }>;
}

/** Where a set is packed from, and the most its archive may take. */
export interface PackPlace {
  /** Real path of the source root and of the set's folder: every file's real path must lie inside the folder's. */
  realRoot: string;
  realFolder: string;
  /** The most bytes of gzip kept; past them the packing stops with a problem. */
  maxGzipBytes: number;
  /** The folder, relative to the root, as problems name it. */
  folder: string;
  /**
   * One file (its path in the folder) whose bytes the archive holds rewritten: a set's config file with the levels its
   * rollout holds back. The digest and the files listed are always of the bytes as they are in the folder.
   */
  rewrite?: { path: string; bytes: (declared: Buffer) => Buffer };
}

/** A fixed time (2000-01-01T00:00:00Z) for every entry: a checkout's times never change the bytes. */
const FIXED_TIME = new Date(Date.UTC(2000, 0, 1));
/** gzip's header names the operating system that wrote it; one fixed value (3: Unix) keeps the bytes the same everywhere. */
const GZIP_OS_OFFSET = 9;
const GZIP_OS_UNIX = 3;
/** A tar block: each entry is a header block and its data rounded up to whole blocks; the archive ends with two empty ones. */
const BLOCK = 512;
/** Each file is read through one buffer of this size, so a file costs no more memory than it. */
const CHUNK_BYTES = 65_536;
/** Files packed between two turns of the event loop. */
const YIELD_EVERY = 16;

/** The size of the uncompressed tar of files of these sizes, known before any is read. */
export function estimateTarBytes(sizes: Iterable<number>): number {
  let total = 2 * BLOCK;
  for (const size of sizes) total += BLOCK + Math.ceil(size / BLOCK) * BLOCK;
  return total;
}

/** Sorts by path, by code unit: the order of the archive's entries, whatever order the files came in. */
export function byArchivePath<T extends { path: string }>(files: readonly T[]): T[] {
  return [...files].sort((a, b) => byCodeUnit(a.path, b.path));
}

/**
 * Packs the files as a deterministic `tar.gz`: entries sorted by path, regular files only (folders are implied by
 * the paths), mode 0644, owner and group 0 with no names, a fixed time; the same tree gives the same bytes. Each file
 * streams through tar and gzip (zlib compresses on its thread pool, off the event loop), read a chunk at a time; only
 * the gzip is held, and past `maxGzipBytes` the packing stops. A file whose real path leaves the folder, that cannot
 * be read or that changed size since it was listed is a problem naming it.
 */
export async function packSet(files: readonly ArchiveFile[], place: PackPlace): Promise<{ archive: SetArchive } | { problems: SourceProblem[] }> {
  const pack = tar.pack();
  const gzip = createGzip({ level: 9 });
  const chunks: Buffer[] = [];
  let gzipBytes = 0;
  gzip.on('data', (chunk: Buffer) => {
    gzipBytes += chunk.length;
    if (gzipBytes <= place.maxGzipBytes) chunks.push(chunk);
  });
  const finished = once(gzip, 'end');
  pack.pipe(gzip);
  const digest = createHash('sha256');
  const packed: SetArchive['files'] = [];
  const turn = turnTaker(YIELD_EVERY);
  const buffer = Buffer.allocUnsafe(CHUNK_BYTES);
  for (const file of byArchivePath(files)) {
    await turn();
    const wrote = await packFile(pack, file, place, buffer);
    if ('problem' in wrote) return stop(pack, gzip, [wrote.problem]);
    packed.push({ path: file.path, sha256: wrote.sha256, size: wrote.size });
    digest.update(`${wrote.sha256}  ${file.path}\n`);
    if (gzipBytes > place.maxGzipBytes) return stop(pack, gzip, [overCap(place, gzipBytes)]);
  }
  pack.finalize();
  await finished;
  if (gzipBytes > place.maxGzipBytes) return { problems: [overCap(place, gzipBytes)] };
  const packedGzip = Buffer.concat(chunks);
  packedGzip[GZIP_OS_OFFSET] = GZIP_OS_UNIX;
  return { archive: { gzip: packedGzip, digest: digest.digest('hex'), files: packed } };
}

function overCap(place: PackPlace, bytes: number): SourceProblem {
  return { file: place.folder, message: `packs to more than ${place.maxGzipBytes} bytes (${bytes} so far); a policy set's archive may be at most ${place.maxGzipBytes} bytes` };
}

function stop(pack: ReturnType<typeof tar.pack>, gzip: ReturnType<typeof createGzip>, problems: SourceProblem[]): { problems: SourceProblem[] } {
  pack.destroy();
  gzip.destroy();
  return { problems };
}

/** Streams one file into the archive, a chunk at a time, with its content digest; waits while gzip is behind. */
async function packFile(
  pack: ReturnType<typeof tar.pack>, file: ArchiveFile, place: PackPlace, buffer: Buffer,
): Promise<{ sha256: string; size: number } | { problem: SourceProblem }> {
  const opened = openSourceFile(place.realRoot, file.rel, file.abs, Number.MAX_SAFE_INTEGER, file.real);
  if ('problem' in opened) return opened;
  try {
    // The second check, intended: the walk judged each file by its real path (policy-set-files.ts), but a file may have
    // become a link out of the folder since (and the upload packs again, long after the plan).
    if (!isInside(place.realFolder, file.real)) return { problem: { file: file.rel, message: `resolves outside the policy set's folder ${place.folder}` } };
    if (opened.size !== file.size) return { problem: changed(file) };
    if (place.rewrite?.path === file.path) return await packRewritten(pack, file, opened, place.rewrite.bytes);
    const header = entryHeader(file.path, opened.size);
    let entry!: ReturnType<typeof pack.entry>;
    const done = new Promise<void>((resolve, reject) => {
      entry = pack.entry(header, (error) => (error ? reject(error) : resolve()));
    });
    // An entry left short (the file shrank) fails when the packing is stopped; that is reported as the change.
    done.catch(() => undefined);
    const scan = createCodeScan();
    for (let length = buffer.length, total = 0; length === buffer.length;) {
      length = fillFrom(opened.fd, buffer);
      total += length;
      if (total > opened.size) return { problem: changed(file) };
      if (length === 0) break;
      const chunk = Buffer.from(buffer.subarray(0, length));
      scan.update(chunk);
      if (!entry.write(chunk)) await once(entry, 'drain');
    }
    const scanned = scan.finish();
    if (scanned.bytes !== opened.size) return { problem: changed(file) };
    entry.end();
    await done;
    return packedDigest(scanned);
  } finally {
    closeSync(opened.fd);
  }
}

/** A small file (a set's config file) read whole, its digest of the bytes read, the archive holding them rewritten. */
async function packRewritten(
  pack: ReturnType<typeof tar.pack>, file: ArchiveFile, opened: { fd: number; size: number }, rewrite: (declared: Buffer) => Buffer,
): Promise<{ sha256: string; size: number } | { problem: SourceProblem }> {
  const whole = Buffer.alloc(opened.size);
  const length = opened.size === 0 ? 0 : fillFrom(opened.fd, whole);
  if (length !== opened.size || fillFrom(opened.fd, Buffer.alloc(1)) !== 0) return { problem: changed(file) };
  const scan = createCodeScan();
  scan.update(whole);
  const scanned = scan.finish();
  const bytes = rewrite(whole);
  await new Promise<void>((resolve, reject) => {
    pack.entry(entryHeader(file.path, bytes.length), bytes, (error) => (error ? reject(error) : resolve()));
  });
  return packedDigest(scanned);
}

/** One entry's header: the same for every file but its name and size, so the bytes depend on nothing else. */
function entryHeader(name: string, size: number) {
  return { name, size, mode: 0o644, mtime: FIXED_TIME, uid: 0, gid: 0, uname: '', gname: '', type: 'file' as const };
}

/** A packed file's content digest: of its text with line ends normalised when it is UTF-8, else of its bytes. */
function packedDigest(scanned: ReturnType<ReturnType<typeof createCodeScan>['finish']>): { sha256: string; size: number } {
  return { sha256: scanned.utf8 ? scanned.codeDigest : scanned.fileSha256, size: scanned.bytes };
}

function changed(file: ArchiveFile): SourceProblem {
  return { file: file.rel, message: 'changed while it was packed; plan again' };
}
