export { exportOrganization, type ExportApi, type ExportOptions, type ExportResult, type NotExported } from './export.js';
export { EXPORT_FOLDERS, policyFiles, poolFile, type ExportFile } from './files.js';
export { checkTarget, treeWriter, type TreeWriter } from './write-tree.js';
export { exportSummary } from './summary.js';
