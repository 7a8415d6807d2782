/** Reading YAML files against the published JSON Schemas: every problem names the file, the line and the key path. */
export { parseYaml, type YamlDocument } from './document.js';
export { describeValue, keyLabel, pointerPath, type KeyPath } from './key-path.js';
export { schemaMessage } from './messages.js';
export { checkYaml, schemaErrors, schemaIssues, type SchemaIssue } from './schema.js';
export { invalidFile } from './invalid.js';
