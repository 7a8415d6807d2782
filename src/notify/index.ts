export { createNotifier, type Notifier, type NotifierOptions } from './notifier.js';
export { passReport, type PassReport, type ReportChange } from './report.js';
export { declaredUnchanged, NOTIFY_EVENTS, type NotifyEvent } from './events.js';
export { SIGNATURE_HEADER } from './receivers.js';
export { DELIVERY_DEFAULTS, type DeliveryLimits } from './delivery.js';
