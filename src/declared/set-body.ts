import path from 'node:path';
import { MAX_CODE_BYTES } from '../model.js';
import { readSourceFile } from './read-file.js';
import { packSet, type ArchiveFile } from './set-archive.js';
import type { SetContent } from './types.js';

/**
 * The archive of a versioned set for its upload: the files the plan counted, read again under the source root and
 * packed again, proved against the digest the plan compared. A folder changed since the plan was made is refused.
 */
export async function setArchiveBody(content: SetContent): Promise<Buffer> {
  const files: ArchiveFile[] = [];
  for (const file of content.files) {
    const rel = `${content.folder}/${file.path}`;
    const read = readSourceFile(content.root, rel, path.join(content.root, ...rel.split('/')), MAX_CODE_BYTES);
    if ('problem' in read) throw new Error(`policy set folder ${content.folder}: ${read.problem.file} ${read.problem.message}`);
    files.push({ path: file.path, bytes: read.bytes });
  }
  const archive = await packSet(files);
  if (archive.digest !== content.digest) {
    throw new Error(`policy set folder ${content.folder} changed since the plan was made; nothing was uploaded. Plan again`);
  }
  return archive.gzip;
}
