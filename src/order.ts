/**
 * The one order of names and paths: by UTF-16 code unit, as JavaScript's `<` compares strings, never by the locale
 * (`localeCompare` sorts `B` after `a` on one machine and before it on another). Plans, archives, exports and the
 * emulator's lists come out in the same order everywhere.
 */
export function byCodeUnit(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
