export { renderText, shouldColor, type TextOptions } from './text.js';
export { renderJson } from './json.js';
export { renderMarkdown } from './markdown.js';
export { passErrors, sourceErrors, summarize, totalChanges, type PlanSummary } from './describe.js';
export { renderSavedPlan } from './saved-plan.js';
export { applySummary, renderApplied, type AppliedSource } from './applied.js';
