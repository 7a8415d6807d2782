/** ANSI colour for the text plan; identity functions when colour is off. */
export interface Palette {
  green(text: string): string;
  yellow(text: string): string;
  red(text: string): string;
  cyan(text: string): string;
  magenta(text: string): string;
  bold(text: string): string;
}

function ansi(code: number, enabled: boolean): (text: string) => string {
  return (text) => (enabled && text !== '' ? `\u001b[${code}m${text}\u001b[0m` : text);
}

export function palette(color: boolean): Palette {
  return {
    green: ansi(32, color),
    yellow: ansi(33, color),
    red: ansi(31, color),
    cyan: ansi(36, color),
    magenta: ansi(35, color),
    bold: ansi(1, color),
  };
}

/**
 * Colour only on a terminal, never with `NO_COLOR` (any non-empty value, https://no-color.org) or
 * `TERM=dumb`. `FORCE_COLOR` (non-empty, not `0`) turns it on for terminals that do not say they are.
 */
export function shouldColor(stream: NodeJS.WriteStream, env: NodeJS.ProcessEnv): boolean {
  if (env['NO_COLOR'] !== undefined && env['NO_COLOR'] !== '') return false;
  const force = env['FORCE_COLOR'];
  if (force !== undefined && force !== '' && force !== '0') return true;
  if (env['TERM'] === 'dumb') return false;
  return stream.isTTY === true;
}
