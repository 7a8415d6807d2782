export { planChanges } from './plan.js';
export { markerSource, stripMarker, withMarker } from './marker.js';
export { codeDigest, sameCode } from './code.js';
export { countedDeletes } from './guards.js';
export { compareChanges } from './order.js';
export type * from './types.js';
