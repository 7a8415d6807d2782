/**
 * What the single-file bundle carries inside it: the package's version. null when running from dist/, which reads it
 * from package.json; scripts/bundle.mjs replaces this module with the value. (The JSON schemas need not be carried:
 * their validators are compiled into the code, src/yaml/schema-validators.generated.ts.)
 */
export const EMBEDDED: { version: string } | null = null as { version: string } | null;
