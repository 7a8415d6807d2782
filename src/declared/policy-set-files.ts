import { readlinkSync, realpathSync } from 'node:fs';
import path from 'node:path';
import type { SourceProblem } from '../errors.js';
import type { PathFilter } from './path-filter.js';
import { isInside } from '../path-inside.js';
import { unreadable } from './read-file.js';
import { turnTaker } from './turns.js';
import type { FoundFile } from './walk.js';

/** Files judged between two turns of the event loop. */
const YIELD_EVERY = 100;

/** The settings file beside a versioned set's config file; never packed. */
export const SET_SETTINGS_FILE = 'policy-set.yaml';

/**
 * The real path of a set's folder (`folder` relative to the source root, with `/`): the one place it is worked out.
 * Every file of the set must lie inside it, judged when the repo is read (`ownSetFiles`), and again as each file is
 * packed (`packSet`), for the plan and for the upload, since a file or the folder may have become a link since the
 * walk. Throws the file system's error when the folder cannot be resolved.
 */
export function realSetFolder(realRoot: string, folder: string): string {
  return realpathSync.native(path.join(realRoot, ...folder.split('/')));
}

/**
 * A set archive holds only the set's own files: of the files the walk found under each set folder (by the paths of
 * their links), those whose real path lies inside the folder's real path, and that the built-in rules and
 * `.syncignore` leave in when applied to that real path too (so a link named `gitdir` to `.git` brings nothing in).
 * A symbolic link that leaves its set's folder is a problem naming the link, once, however many files lie behind it.
 * A link to the folder's `policy-set.yaml` is left out (the file itself is kept, as the set's settings: never packed).
 */
export async function ownSetFiles(
  folders: readonly string[], files: readonly FoundFile[], realRoot: string, filter: PathFilter,
): Promise<{ files: FoundFile[]; problems: SourceProblem[] }> {
  const turn = turnTaker(YIELD_EVERY);
  const own: FoundFile[] = [];
  const problems: SourceProblem[] = [];
  for (const folder of folders) {
    const inside = files.filter((f) => f.rel.startsWith(`${folder}/`));
    let realFolder: string;
    try {
      realFolder = realSetFolder(realRoot, folder);
    } catch (error) {
      problems.push(unreadable(folder, error));
      continue;
    }
    const links: string[] = [];
    for (const file of inside) {
      await turn();
      if (!isInside(realFolder, file.real)) {
        if (links.some((link) => file.rel.startsWith(`${link}/`))) continue;
        const link = leavingLink(folder, file.rel, realRoot, realFolder);
        links.push(link);
        problems.push({ file: link, message: `is a symbolic link to ${linkTarget(realRoot, link)}, outside the policy set's folder ${folder}; a set holds only its own files: move the target into the folder` });
        continue;
      }
      const realRel = path.relative(realRoot, file.real).split(path.sep).join('/');
      const realInFolder = path.relative(realFolder, file.real).split(path.sep).join('/');
      // The settings file by its own name is read as the settings (readPolicySets); reached through a link, it is left out.
      const settingsLink = realInFolder === SET_SETTINGS_FILE && file.rel !== `${folder}/${SET_SETTINGS_FILE}`;
      if (settingsLink || filter.isIgnored(realRel, false)) continue;
      own.push(file);
    }
  }
  return { files: own, problems };
}

/** The outermost path of `rel` below `folder` that is a link out of the folder's real path (the file itself at most). */
function leavingLink(folder: string, rel: string, root: string, realFolder: string): string {
  const segments = rel.slice(folder.length + 1).split('/');
  for (let length = 1; length < segments.length; length += 1) {
    const prefix = `${folder}/${segments.slice(0, length).join('/')}`;
    try {
      if (!isInside(realFolder, realpathSync.native(path.join(root, ...prefix.split('/'))))) return prefix;
    } catch {
      return prefix;
    }
  }
  return rel;
}

function linkTarget(root: string, link: string): string {
  try {
    return readlinkSync(path.join(root, ...link.split('/')));
  } catch {
    return 'a path out of it';
  }
}
