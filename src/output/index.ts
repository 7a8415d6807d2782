export { renderText, type TextOptions } from './text.js';
export { renderJson } from './json.js';
export { renderMarkdown } from './markdown.js';
export { summarize, totalChanges, type PlanSummary } from './summary.js';
export { shouldColor } from './color.js';
