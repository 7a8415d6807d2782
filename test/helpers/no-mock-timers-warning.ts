/**
 * Imported first by the tests that use `t.mock.timers`: Node 20 prints `ExperimentalWarning: The MockTimers API is an
 * experimental feature` once per test process, which says nothing about the code under test and hides what does.
 * Only that warning is dropped; every other warning is emitted as before.
 */
const emit = process.emitWarning.bind(process) as (...args: unknown[]) => void;
process.emitWarning = ((warning: string | Error, ...rest: unknown[]) => {
  const text = typeof warning === 'string' ? warning : warning.message;
  if (text.startsWith('The MockTimers API')) return;
  emit(warning, ...rest);
}) as typeof process.emitWarning;
