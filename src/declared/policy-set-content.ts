import path from 'node:path';
import type { SourceProblem } from '../errors.js';
import { MAX_HCL_BYTES } from '../hcl.js';
import { MAX_CODE_BYTES } from '../model.js';
import { decodeText, readSourceFile, unreadable } from './read-file.js';
import { estimateTarBytes, packSet, type ArchiveFile } from './policy-set-archive.js';
import { readSetConfig } from './policy-set-config.js';
import { realSetFolder } from './policy-set-files.js';
import type { SetContent } from './types.js';
import type { FoundFile } from './walk.js';

/**
 * The most a set's folder may hold: files, and bytes of uncompressed tar (512 bytes a file plus its size rounded up
 * to 512), both known from the listing before any file is read; and bytes of the gzipped archive, counted as it is
 * packed. The service documents no limit; these keep a mistaken folder (a vendored tree, build output) from being
 * packed and sent, and the work of a pass within what the daemon's container allows (docs/how-it-works.md has the
 * measurements). The largest library seen, the AWS FSBP set, is 307 files and 1.1 MB.
 */
export const MAX_SET_FILES = 5_000;
export const MAX_SET_TAR_BYTES = 32 * 1024 * 1024;
export const MAX_SET_ARCHIVE_BYTES = 20 * 1024 * 1024;

/** A versioned set's folder: its config file and the files to pack (the set's own, never its settings file). */
export interface SetFolderFiles {
  folder: string;
  config: FoundFile;
  files: FoundFile[];
}

/**
 * A set's content: its size refused before anything is read when the listing already says it cannot fit, then its
 * config file read (within the HCL parser's cap) and checked against the files, then the folder packed.
 */
export async function readSetContent(entry: SetFolderFiles, realRoot: string): Promise<{ content: SetContent | null; problems: SourceProblem[] }> {
  const files: ArchiveFile[] = entry.files.map((f) => ({ path: f.rel.slice(entry.folder.length + 1), rel: f.rel, abs: f.abs, real: f.real, size: f.size }));
  const tarBytes = estimateTarBytes(files.map((f) => f.size));
  if (files.length > MAX_SET_FILES) return refused(entry.folder, `holds ${files.length} files; a policy set's folder may hold at most ${MAX_SET_FILES}. Leave files out with .syncignore`);
  if (tarBytes > MAX_SET_TAR_BYTES) {
    return refused(entry.folder, `would pack to a ${tarBytes}-byte tar (512 bytes a file plus its size rounded up to 512); a policy set's may be at most ${MAX_SET_TAR_BYTES} bytes (32 MiB). Leave files out with .syncignore`);
  }
  const read = readSourceFile(realRoot, entry.config.rel, entry.config.abs, MAX_HCL_BYTES, entry.config.real);
  const text = 'problem' in read ? read : decodeText(entry.config.rel, read.bytes);
  if ('problem' in text) return { content: null, problems: [text.problem] };
  const checked = await readSetConfig(entry.config.rel, text.text, new Set(files.map((f) => f.path)), (file) => policyText(files, file, realRoot));
  if (checked.problems.length > 0) return { content: null, problems: checked.problems };
  let realFolder: string;
  try {
    realFolder = realSetFolder(realRoot, entry.folder);
  } catch (error) {
    return { content: null, problems: [unreadable(entry.folder, error)] };
  }
  const packed = await packSet(files, { realRoot, realFolder, folder: entry.folder, maxGzipBytes: MAX_SET_ARCHIVE_BYTES });
  if ('problems' in packed) return { content: null, problems: packed.problems };
  const { archive } = packed;
  return {
    content: {
      folder: entry.folder, root: realRoot, configFile: path.posix.basename(entry.config.rel), digest: archive.digest, bytes: archive.gzip.length,
      files: archive.files, policies: checked.config.policies.length, modules: checked.config.modules.length,
      levels: checked.config.policies.map((p) => ({ name: p.name, level: p.level ?? 'advisory' })),
    },
    problems: [],
  };
}

function refused(folder: string, message: string): { content: null; problems: SourceProblem[] } {
  return { content: null, problems: [{ file: folder, message }] };
}

/** The text of one of the set's files (a policy whose parameters the config file's check reads); null when unreadable. */
function policyText(files: readonly ArchiveFile[], file: string, realRoot: string): string | null {
  const found = files.find((f) => f.path === file);
  if (found === undefined) return null;
  const read = readSourceFile(realRoot, found.rel, found.abs, MAX_CODE_BYTES, found.real);
  return 'problem' in read ? null : Buffer.from(read.bytes).toString('utf8');
}
