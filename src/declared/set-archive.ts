import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import tar from 'tar-stream';

/** One file of a versioned policy set's folder, as packed. */
export interface ArchiveFile {
  /** Relative to the set's folder, with `/` separators. */
  path: string;
  bytes: Uint8Array;
}

/** A packed set folder: the gzipped archive, the digest of the archive before compression, and each file's digest. */
export interface SetArchive {
  gzip: Buffer;
  /** sha256 (hex) of the uncompressed tar: the same tree gives the same digest whatever the compressor. */
  digest: string;
  files: Array<{ path: string; sha256: string; size: number }>;
}

/** A fixed time (2000-01-01T00:00:00Z) for every entry: a checkout's times never change the bytes. */
const FIXED_TIME = new Date(Date.UTC(2000, 0, 1));
/** gzip's header names the operating system that wrote it; one fixed value (3: Unix) keeps the bytes the same everywhere. */
const GZIP_OS_OFFSET = 9;
const GZIP_OS_UNIX = 3;

/**
 * Packs the files as a deterministic `tar.gz`: entries sorted by path, regular files only (folders are implied by
 * the paths), mode 0644, owner and group 0 with no names, a fixed time; the same tree gives the same bytes.
 */
export async function packSet(files: readonly ArchiveFile[]): Promise<SetArchive> {
  const sorted = [...files].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const pack = tar.pack();
  const chunks: Buffer[] = [];
  const done = new Promise<void>((resolve, reject) => {
    pack.on('data', (chunk: Buffer) => chunks.push(chunk));
    pack.on('end', () => resolve());
    pack.on('error', reject);
  });
  for (const file of sorted) {
    const header = { name: file.path, size: file.bytes.length, mode: 0o644, mtime: FIXED_TIME, uid: 0, gid: 0, uname: '', gname: '', type: 'file' as const };
    await new Promise<void>((resolve, reject) => pack.entry(header, Buffer.from(file.bytes), (error) => (error ? reject(error) : resolve())));
  }
  pack.finalize();
  await done;
  const tarBytes = Buffer.concat(chunks);
  const gzip = gzipSync(tarBytes, { level: 9 });
  gzip[GZIP_OS_OFFSET] = GZIP_OS_UNIX;
  return {
    gzip,
    digest: createHash('sha256').update(tarBytes).digest('hex'),
    files: sorted.map((f) => ({ path: f.path, sha256: createHash('sha256').update(f.bytes).digest('hex'), size: f.bytes.length })),
  };
}
