/**
 * What the single-file bundle carries inside it: the package's version and the JSON schemas. null when running from
 * dist/, which reads them from the package's files; scripts/bundle.mjs replaces this module with the values.
 */
export const EMBEDDED: { version: string; schemas: Readonly<Record<string, object>> } | null = null as
  | { version: string; schemas: Readonly<Record<string, object>> }
  | null;
