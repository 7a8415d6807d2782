import { realpathSync } from 'node:fs';
import path from 'node:path';
import { withHeldLevels } from './held-levels.js';
import { packSet, type ArchiveFile } from './policy-set-archive.js';
import { realSetFolder } from './policy-set-files.js';
import { turnTaker } from './turns.js';
import { MAX_SET_ARCHIVE_BYTES } from './policy-set-content.js';
import type { SetContent } from './types.js';

/**
 * The archive of a versioned set for its upload: the files the plan counted, resolved again under the source root
 * (each must still lie inside the folder's real path) and packed again, proved against the digest the plan compared.
 * A folder changed since the plan was made is refused. The config file holds the levels a rollout holds back.
 */
export async function setArchiveBody(content: SetContent): Promise<Buffer> {
  const refuse = (why: string) => new Error(`policy set folder ${content.folder} ${why}; nothing was uploaded. Plan again`);
  let realFolder: string;
  const files: ArchiveFile[] = [];
  const turn = turnTaker(100);
  try {
    realFolder = realSetFolder(content.root, content.folder);
    for (const file of content.files) {
      await turn();
      const rel = `${content.folder}/${file.path}`;
      const abs = path.join(content.root, ...rel.split('/'));
      files.push({ path: file.path, rel, abs, real: realpathSync.native(abs), size: file.size });
    }
  } catch (error) {
    throw refuse(`cannot be read again (${(error as NodeJS.ErrnoException).code ?? String(error)})`);
  }
  // A rollout's held levels are in the upload's config file; the digest proved is the folder's as declared.
  const held = content.held ?? [];
  const rewrite = held.length === 0 ? {} : { rewrite: { path: content.configFile, bytes: (declared: Buffer) => Buffer.from(withHeldLevels(declared.toString('utf8'), held), 'utf8') } };
  const packed = await packSet(files, { realRoot: content.root, realFolder, folder: content.folder, maxGzipBytes: MAX_SET_ARCHIVE_BYTES, ...rewrite });
  if ('problems' in packed) throw refuse(`cannot be packed again: ${packed.problems.map((p) => `${p.file} ${p.message}`).join("; ")}`);
  if (packed.archive.digest !== content.digest) throw refuse('changed since the plan was made');
  return packed.archive.gzip;
}
