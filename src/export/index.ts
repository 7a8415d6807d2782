export { exportOrganization, type ExportApi, type ExportResult, type NotExported } from './export.js';
export { policyFiles, poolFile, type ExportFile } from './files.js';
export { checkTarget, writeFiles } from './write-tree.js';
export { exportSummary } from './summary.js';
