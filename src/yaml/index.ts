/** Reading YAML files against the published JSON Schemas: every problem names the file, the line and the key path. */
export { parseYaml, type YamlDocument } from './document.js';
export { keyLabel, type KeyPath } from './key-path.js';
export { checkYaml, schemaIssues, type SchemaIssue } from './schema.js';
export { invalidFile } from './invalid.js';
