import path from 'node:path';

const above = path.resolve(import.meta.dirname, '../..');

/** The repository's root folder, whether the tests run from their sources or compiled into .test-build (test/compile.mjs). */
export const REPO_ROOT = path.basename(above) === '.test-build' ? path.dirname(above) : above;
