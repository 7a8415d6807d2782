/**
 * What a policy imports and, for Rego, which `data.` packages it refers to, found as its code is read; and those that
 * will fail on the service: a policy is uploaded alone, with no modules and no other packages than the uploaded ones, so
 * such an import or reference only fails when the policy runs, long after the upload succeeded.
 */
import type { SourceProblem } from '../errors.js';
import type { PolicyKind } from '../model.js';
import { createRegoReferenceScan } from './rego-references.js';

/** Sentinel's plan imports and standard library: what a policy uploaded alone can import. */
export const SENTINEL_STANDARD_IMPORTS: ReadonlySet<string> = new Set([
  'tfplan', 'tfplan/v2', 'tfconfig', 'tfconfig/v2', 'tfstate', 'tfstate/v2', 'tfrun',
  'strings', 'time', 'json', 'decimal', 'types', 'units', 'base64', 'http', 'runtime', 'sockaddr', 'version',
  'collection', 'collection/lists', 'collection/maps',
]);

/** One import statement: what it names and the line it is on (1-based). */
export interface ImportLine {
  target: string;
  line: number;
}

/** What the scan of one code file found: its imports, and for Rego the package it declares and the ones it refers to. */
export interface ImportFacts {
  imports: ImportLine[];
  /** Rego only: the package, e.g. `terraform.lib`; null when none was found. */
  regoPackage: string | null;
  /**
   * Rego only: each `data.<path>` the code refers to outside import lines, comments and strings (`target` is the path
   * without `data.`, e.g. `utils.resource`), once, with the first line it is on.
   */
  references: ImportLine[];
}

/** A line longer than this is not an import statement; the scan keeps no more of one. */
const MAX_LINE_CHARS = 4096;
const SENTINEL_IMPORT = /^\s*import\s+"([^"]+)"/;
const REGO_IMPORT = /^\s*import\s+data\.([A-Za-z_][\w]*(?:\.[A-Za-z_][\w]*)*)/;
const REGO_PACKAGE = /^\s*package\s+([A-Za-z_][\w]*(?:\.[A-Za-z_][\w]*)*)/;

/** Scans code chunk by chunk (as the reader hands them over), line by line, keeping only import and package lines. */
export function createImportScan(kind: PolicyKind): { update(chunk: Uint8Array): void; finish(): ImportFacts } {
  const decoder = new TextDecoder('utf-8');
  const facts: ImportFacts = { imports: [], regoPackage: null, references: [] };
  const references = createRegoReferenceScan();
  let carry = '';
  let lineNumber = 0;
  const take = (line: string): void => {
    lineNumber += 1;
    if (kind === 'opa') {
      // A line that starts inside a raw string is text, neither an import nor a package.
      const code = !references.inString;
      const found = code ? REGO_IMPORT.exec(line) : null;
      const pkg = code && facts.regoPackage === null ? REGO_PACKAGE.exec(line) : null;
      if (pkg !== null) facts.regoPackage = pkg[1] as string;
      if (found !== null) facts.imports.push({ target: found[1] as string, line: lineNumber });
      else references.line(line, lineNumber);
      return;
    }
    const found = SENTINEL_IMPORT.exec(line);
    if (found !== null) facts.imports.push({ target: found[1] as string, line: lineNumber });
  };
  const feed = (text: string, last: boolean): void => {
    const lines = (carry + text).split('\n');
    carry = last ? '' : (lines.pop() as string).slice(0, MAX_LINE_CHARS);
    for (const line of lines) take(line);
  };
  return {
    update: (chunk) => feed(decoder.decode(chunk, { stream: true }), false),
    finish: () => {
      feed(decoder.decode(), true);
      facts.references = references.references().map(({ path, line }) => ({ target: path, line }));
      return facts;
    },
  };
}

/** The import facts of a whole code text (for files read at once, such as those of a policy set's folder). */
export function scanCodeText(kind: PolicyKind, text: string): ImportFacts {
  const scan = createImportScan(kind);
  scan.update(new TextEncoder().encode(text));
  return scan.finish();
}

/** A code file's import facts, with the file they came from. */
export interface FileImports extends ImportFacts {
  file: string;
  kind: PolicyKind;
}

/** An import (or a Rego `data.` reference) that will fail on the service: what it names, where, and why. */
export interface UnresolvedImport {
  file: string;
  line: number;
  /**
   * `"name"` for a Sentinel import, `data.package` for a Rego one: as the code writes it. For a reference, the part of
   * the path under which no uploaded package lies (`data.utils` for `data.utils.resource(...)`).
   */
  target: string;
  /** Why it fails on the service. */
  reason: string;
  /** `imports` for an import line, `refers to` for a `data.` reference in the code. @default 'imports' */
  verb?: 'imports' | 'refers to';
}

/** What is uploaded together with the files checked, when it is not the files themselves. */
export interface UploadedTogether {
  /** Packages declared by files uploaded with them that are not checked themselves (a set's library files). */
  packages?: Iterable<string>;
  /** The folder of the versioned policy set whose files these are; unset: individual policies, each uploaded alone. */
  setFolder?: string;
}

/** How many files a grouped import warning names before it counts the rest. */
const FILES_NAMED = 3;

const LONE_REGO = 'a package no declared .rego file declares: a policy is uploaded alone (a library beside the policies, such as lib/, never is), so';
const SET_WAY_OUT = 'an OPA versioned policy set, a folder holding policies.hcl with the library files in it too, uploads them together';

/** The reason an unresolved Rego import or reference fails, for the import or the reference. */
function regoReason(what: 'import' | 'reference', together: UploadedTogether): string {
  if (together.setFolder !== undefined) {
    return `a package no .rego file of the policy set ${together.setFolder} declares, so the ${what} fails when it runs; put the file that declares it in that folder`;
  }
  return `${LONE_REGO} the ${what} fails when it runs; ${SET_WAY_OUT}`;
}

/**
 * Whether the uploaded packages provide a Rego `data.` path, and if not, the shortest part of it under which none lies:
 * a path is provided by a package it lies in (`utils.resource` by `utils`: a rule below the package) and by the packages
 * below it (`terraform` by `terraform.lib`: a document holding them).
 */
function regoLookup(packages: ReadonlySet<string>): (path: string) => string | null {
  const prefixes = new Set<string>();
  for (const name of packages) {
    for (let at = name.indexOf('.'); at >= 0; at = name.indexOf('.', at + 1)) prefixes.add(name.slice(0, at));
    prefixes.add(name);
  }
  return (path) => {
    for (let at = path.indexOf('.'); ; at = path.indexOf('.', at + 1)) {
      const part = at < 0 ? path : path.slice(0, at);
      if (packages.has(part)) return null;
      if (!prefixes.has(part)) return part;
      if (at < 0) return null;
    }
  };
}

/**
 * The imports that will fail on the service, one each naming the file, the line and the import: a Sentinel import that
 * is neither standard nor a plan import (a module of the repo), a Rego `import data.<package>` that no uploaded `.rego`
 * file declares, and once per file each part of `data.` a Rego policy's code refers to under which no uploaded package
 * lies. `files` are uploaded together: each declared policy (each alone, yet the service knows the packages of all), or
 * a set's files, with `together` naming the set and the packages of its other files. Sorted by file, then line.
 */
export function unresolvedImports(files: readonly FileImports[], together: UploadedTogether = {}): UnresolvedImport[] {
  const packages = new Set(files.flatMap((f) => (f.kind === 'opa' && f.regoPackage !== null ? [f.regoPackage] : [])));
  for (const name of together.packages ?? []) packages.add(name);
  const missing = regoLookup(packages);
  const found: UnresolvedImport[] = [];
  for (const file of files) {
    for (const { target, line } of file.imports) {
      if (file.kind === 'opa' && missing(target) !== null) {
        found.push({ file: file.file, line, target: `data.${target}`, reason: regoReason('import', together) });
      } else if (file.kind === 'native' && !SENTINEL_STANDARD_IMPORTS.has(target)) {
        found.push({ file: file.file, line, target: `"${target}"`, reason: 'neither a standard nor a plan import: a policy is uploaded alone, without modules, so the import fails when it runs' });
      }
    }
    if (file.kind === 'opa') found.push(...unresolvedReferences(file, missing, together));
  }
  return found.sort((a, b) => (a.file === b.file ? a.line - b.line : a.file < b.file ? -1 : 1));
}

/** A Rego file's references under which no uploaded package lies: one for each such part, at its first line. */
function unresolvedReferences(file: FileImports, missing: (path: string) => string | null, together: UploadedTogether): UnresolvedImport[] {
  const byPart = new Map<string, number>();
  for (const { target, line } of file.references) {
    const part = missing(target);
    if (part !== null && (byPart.get(part) ?? Number.POSITIVE_INFINITY) > line) byPart.set(part, line);
  }
  const reason = regoReason('reference', together);
  return [...byPart].map(([part, line]) => ({ file: file.file, line, target: `data.${part}`, reason, verb: 'refers to' as const }));
}

/** Each unresolved import as a problem of its own (`--strict-imports` makes them errors). */
export function importProblems(imports: readonly UnresolvedImport[]): SourceProblem[] {
  return imports.map(({ file, line, target, reason, verb }) => ({ file, line, message: `${verb ?? 'imports'} ${target}, ${reason}` }));
}

/**
 * The warning lines for unresolved imports, one per thing imported (or referred to): one found in one file is named
 * with its file and line; one found in several names how many policies, the first few files and how many more. In the
 * order of the first file that imports each.
 */
export function importWarnings(imports: readonly UnresolvedImport[], advice: string): string[] {
  const byTarget = new Map<string, UnresolvedImport[]>();
  for (const found of imports) {
    const key = `${found.verb ?? 'imports'} ${found.target}`;
    const same = byTarget.get(key);
    if (same === undefined) byTarget.set(key, [found]);
    else same.push(found);
  }
  return [...byTarget].map(([said, all]) => {
    const first = all[0] as UnresolvedImport;
    if (all.length === 1) return `${first.file}:${first.line}: ${said}, ${first.reason} (${advice})`;
    const files = new Set(all.map((found) => found.file)).size;
    const named = all.slice(0, FILES_NAMED).map((found) => `${found.file}:${found.line}`);
    const more = all.length > FILES_NAMED ? `, and ${all.length - FILES_NAMED} more` : '';
    return `${said} in ${files} policies (${named.join(', ')}${more}): ${first.reason} (${advice})`;
  });
}
