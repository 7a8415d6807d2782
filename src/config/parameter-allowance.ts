/**
 * The allow-list of what a policy set's sensitive parameters may read: the operator's (`--parameter-env`,
 * `--parameter-files`, `parameters:` in the config), never the repo's, and never what this tool reads for itself.
 * Decisions only; `declared/sensitive-values.ts` reads what they allow.
 */
import { statSync } from 'node:fs';
import path from 'node:path';
import { isInside } from '../path-inside.js';
import { ownSecretSources } from './secrets.js';
import type { ParameterAllowance } from './types.js';

/** Nothing allowed: the allowance of a source that says none. */
export const NO_PARAMETERS: ParameterAllowance = { env: [], files: null, reserved: ownSecretSources(null) };

/** A pattern of `--parameter-env` and `parameters.env`: a variable name, or a prefix ending in `*`. */
const PATTERN = /^[A-Za-z_][A-Za-z0-9_]*\*?$/;

/** Where the advice of a refusal points: the flag, its config key and the Action's input. */
export const ALLOW_ENV = '--parameter-env';
export const ALLOW_FILES = '--parameter-files';

/** Why `pattern` is not a pattern of variable names, or null. */
export function parameterPatternProblem(pattern: string): string | null {
  if (pattern === '*') return '"*" would let the repo read every variable of the runner: name a variable, or a prefix ending in * (POLICY_PARAM_*)';
  return PATTERN.test(pattern) ? null : `"${pattern}" is not a variable name, nor a prefix ending in * (POLICY_PARAM_*)`;
}

/** Whether variable `name` is `pattern`, or starts with the prefix a `*` ends. */
export function matchesPattern(name: string, pattern: string): boolean {
  return pattern.endsWith('*') ? name.startsWith(pattern.slice(0, -1)) : name === pattern;
}

/** A variable's name: letters, digits and `_`, not starting with a digit. */
const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * Why `{env: name}` may not be read under `allowance`, or null: a text that is not a variable's name first (said as
 * what is wrong, a NUL or a space shown escaped), then the tool's own secrets, then the allow-list.
 */
export function envRefusal(name: string, allowance: ParameterAllowance): string | null {
  if (!NAME.test(name)) return `{env: ${JSON.stringify(name)}} is not an environment variable's name: ${nameProblem(name)}`;
  const reserved = [...NO_PARAMETERS.reserved.env, ...allowance.reserved.env];
  if (reserved.some((pattern) => matchesPattern(name, pattern))) return `{env: ${name}} names a secret this tool reads for itself; a parameter never reads it`;
  if (allowance.env.some((pattern) => matchesPattern(name, pattern))) return null;
  return `{env: ${name}} is not allowed: the operator allows what a parameter may read (${ALLOW_ENV} ${name}, or parameters.env in the config)`;
}

/** What is wrong with a name NAME refuses: the first character that cannot be in one, by its position. */
function nameProblem(name: string): string {
  if (name === '') return 'it is empty';
  const at = [...name].findIndex((c, i) => !(/[A-Za-z0-9_]/.test(c) && !(i === 0 && /[0-9]/.test(c))));
  const c = [...name][at] ?? '';
  const shown = c === '\0' ? 'a NUL character' : /\s/.test(c) ? 'a space' : /[0-9]/.test(c) ? `the digit ${c}` : `the character ${JSON.stringify(c)}`;
  return `${shown} at character ${at + 1}; a name is letters, digits and _, and does not start with a digit`;
}

/** Whether `file` (absolute) is, or is inside, one of the files and folders this tool never lets a parameter read. */
export function isNeverReadable(file: string, allowance: ParameterAllowance): boolean {
  return reservedFiles(allowance).some((reserved) => isInside(reserved, file));
}

/**
 * Whether the file opened (its device and inode, from fstat) is one of the files this tool never lets a parameter
 * read, whatever its path: a hard link to the token file has a path of its own, never its inode.
 */
export function isNeverReadableInode(opened: { dev: number; ino: number }, allowance: ParameterAllowance): boolean {
  return reservedFiles(allowance).some((reserved) => {
    try {
      const stat = statSync(reserved);
      return stat.dev === opened.dev && stat.ino === opened.ino;
    } catch {
      return false;
    }
  });
}

function reservedFiles(allowance: ParameterAllowance): string[] {
  return [...NO_PARAMETERS.reserved.files, ...allowance.reserved.files];
}

/** A refusal's advice for a file when the operator allowed no folder. */
export const NO_FOLDER = `no folder is allowed: the operator allows one (${ALLOW_FILES} DIR, or parameters.files in the config)`;
