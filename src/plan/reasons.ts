/**
 * The wording of an update's reason. The plan cannot tell who made the difference (the repo changed, or someone
 * changed the live value), so it says only that the live value differs. Drift is a live value that differs from what
 * the last successful pass left: only the daemon knows that (see src/operations/pass-record.ts), and words it so there.
 */
const DIFFERS = 'differs in ';
const DRIFT = 'drift in ';

/** "differs in description, code": the fields an update sets back to the declared values. */
export function differsIn(fields: readonly string[]): string {
  return fields.length === 0 ? '' : `${DIFFERS}${fields.join(', ')}`;
}

/** The same reason, for a pass whose declared side was as the last successful pass left it: "drift in description". */
export function asDrift(reason: string): string {
  return reason.replace(DIFFERS, DRIFT);
}
