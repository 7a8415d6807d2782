import { knownSecrets } from '../config/secrets.js';
import type { Config } from '../config/types.js';
import { createRedactor, type Redact } from '../redact.js';

/**
 * Where the command line's text leaves the process: stdout and stderr, each write through the one redactor. It knows
 * the secrets of the environment from the start, and those of the config once `learn` is given it (before any pass).
 */
export class RedactedIo<S extends NodeJS.WritableStream, E extends NodeJS.WritableStream> {
  readonly stdout: S;
  readonly stderr: E;
  private current: Redact;

  constructor(
    readonly raw: { stdout: S; stderr: E; env: NodeJS.ProcessEnv },
  ) {
    this.current = createRedactor(knownSecrets(null, raw.env));
    this.stdout = this.through(raw.stdout);
    this.stderr = this.through(raw.stderr);
  }

  get env(): NodeJS.ProcessEnv {
    return this.raw.env;
  }

  /** The redactor as it is now; pass `redact` (bound) where text leaves later. */
  readonly redact: Redact = (text) => this.current(text);

  learn(config: Config): void {
    this.current = createRedactor(knownSecrets(config, this.raw.env));
  }

  /** `stream` with every string written to it redacted; everything else (isTTY, columns, events) as it is. */
  private through<T extends NodeJS.WritableStream>(stream: T): T {
    const redact = this.redact;
    return new Proxy(stream, {
      get(target, key) {
        if (key === 'write') {
          const write = target.write.bind(target) as (chunk: unknown, ...rest: unknown[]) => boolean;
          return (chunk: unknown, ...rest: unknown[]) => write(typeof chunk === 'string' ? redact(chunk) : chunk, ...rest);
        }
        const value: unknown = Reflect.get(target, key, target);
        return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      },
    });
  }
}
