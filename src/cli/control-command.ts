import { parseArgs } from 'node:util';
import { UsageError } from '../errors.js';
import { printable } from '../output/printable.js';
import { renderStatus, renderSyncResult, syncExitCode, type DaemonStatus, type PassSummary } from './control-output.js';

/** Seconds a request may take by default; `sync` waits for its pass, so longer (a pass may take `pass-timeout`, 600 s by default). */
const DEFAULT_TIMEOUT_SECONDS = 30;
const DEFAULT_SYNC_TIMEOUT_SECONDS = 900;

/** The commands that talk to a running daemon: `policy-pool-sync status|sync|suspend|resume`. */
export const CONTROL_COMMANDS = ['status', 'sync', 'suspend', 'resume'] as const;
export type ControlCommand = (typeof CONTROL_COMMANDS)[number];

export function isControlCommand(word: string | undefined): word is ControlCommand {
  return (CONTROL_COMMANDS as readonly string[]).includes(word ?? '');
}

/** The daemon's address when --daemon is not given: the default `listen`. */
export const DEFAULT_DAEMON_URL = 'http://127.0.0.1:9090';

export const CONTROL_USAGE = `Usage:
  policy-pool-sync status  [--source NAME] [--daemon URL] [--output text|json] [--timeout SECONDS]
  policy-pool-sync sync    [--source NAME] [--daemon URL] [--output text|json] [--detailed-exitcode] [--override-window] [--timeout SECONDS]
  policy-pool-sync suspend [--source NAME] [--daemon URL] [--timeout SECONDS]
  policy-pool-sync resume  [--source NAME] [--daemon URL] [--timeout SECONDS]

  --daemon URL           the daemon's HTTP address (default ${DEFAULT_DAEMON_URL})
  --timeout SECONDS      how long each request may take (default ${DEFAULT_TIMEOUT_SECONDS}; sync waits for its pass: ${DEFAULT_SYNC_TIMEOUT_SECONDS})
  --source NAME          only that source (default: every source)
  --output FORMAT        text (a table) or json
  --detailed-exitcode    sync: exit 2 when the pass applied changes and nothing failed
  --override-window      sync: apply even in a closed sync window (the log and notifications say so)

Environment: CONTROL_TOKEN (sync, suspend, resume), STATUS_TOKEN (status, and the source list of the others).
Exit codes: 0 success; 1 an error or a failed pass; 2 see --detailed-exitcode.
`;

interface ControlIo {
  stdout: NodeJS.WritableStream;
  env: NodeJS.ProcessEnv;
}

/** Runs one control command against the daemon; resolves with the exit code. */
export async function runControlCommand(argv: string[], io: ControlIo): Promise<number> {
  const [command, ...rest] = argv;
  if (!isControlCommand(command)) throw new UsageError(`unknown command ${command ?? ''}`);
  const args = parseControlArgs(rest);
  if (args.help) {
    io.stdout.write(CONTROL_USAGE);
    return 0;
  }
  // Loaded here: telling whether argv is a control command must not load the HTTP client.
  const { controlClient, CLIENT_LIMITS } = await import('./control-client.js');
  const client = controlClient(args.daemon, io.env, {
    ...CLIENT_LIMITS,
    requestSeconds: args.timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS,
    syncSeconds: args.timeoutSeconds ?? DEFAULT_SYNC_TIMEOUT_SECONDS,
  });
  if (command === 'status') {
    const status = await client.status();
    const sources = pickSources(status, args.source);
    const shown: DaemonStatus = { leadership: status.leadership, sources: status.sources.filter((s) => sources.includes(s.name)) };
    const json = status.leadership === null ? { sources: shown.sources } : shown;
    io.stdout.write(args.output === 'json' ? `${JSON.stringify(json, null, 2)}\n` : renderStatus(shown));
    return 0;
  }
  // With --source, only CONTROL_TOKEN is needed (the daemon answers 404 for an unknown source); without, the list comes from /status.
  const sources = args.source === null ? pickSources(await client.status(), null) : [args.source];
  if (command === 'suspend' || command === 'resume') {
    for (const name of sources) {
      await client.act(name, command);
      io.stdout.write(`source "${printable(name)}" ${command === 'suspend' ? 'suspended' : 'resumed'}\n`);
    }
    return 0;
  }
  const passes: PassSummary[] = [];
  for (const name of sources) {
    const pass = await client.sync(name, { wait: '1', ...(args.overrideWindow ? { 'override-window': '1' } : {}) });
    passes.push({ source: name, pass });
  }
  io.stdout.write(args.output === 'json' ? `${JSON.stringify({ passes }, null, 2)}\n` : renderSyncResult(passes));
  return syncExitCode(passes, args.detailedExitcode);
}

/** `--source`, checked against the daemon's sources; else all of them. */
function pickSources(status: DaemonStatus, source: string | null): string[] {
  const all = status.sources.map((s) => s.name);
  if (source === null) return all;
  if (!all.includes(source)) throw new UsageError(`the daemon has no source named "${source}" (sources: ${all.join(', ')})`);
  return [source];
}

interface ControlArgs {
  daemon: string;
  source: string | null;
  output: 'text' | 'json';
  detailedExitcode: boolean;
  overrideWindow: boolean;
  /** null: the defaults. */
  timeoutSeconds: number | null;
  help: boolean;
}

function parseControlArgs(argv: string[]): ControlArgs {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: false,
      options: {
        daemon: { type: 'string' }, source: { type: 'string' }, output: { type: 'string' }, timeout: { type: 'string' },
        'detailed-exitcode': { type: 'boolean' }, 'override-window': { type: 'boolean' }, help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (error) {
    throw new UsageError(`${(error as Error).message}\n${CONTROL_USAGE}`);
  }
  const output = values.output ?? 'text';
  if (output !== 'text' && output !== 'json') throw new UsageError(`--output must be text or json, not "${output}"`);
  const daemon = values.daemon ?? DEFAULT_DAEMON_URL;
  if (!/^https?:\/\/[^\s/]+/.test(daemon)) throw new UsageError(`--daemon "${daemon}" is not an http(s) URL, e.g. ${DEFAULT_DAEMON_URL}`);
  const timeout = values.timeout === undefined ? null : Number(values.timeout);
  if (timeout !== null && !(Number.isFinite(timeout) && timeout > 0)) throw new UsageError(`--timeout must be a number of seconds above 0, not "${values.timeout}"`);
  return {
    timeoutSeconds: timeout,
    daemon: daemon.replace(/\/+$/, ''),
    source: values.source ?? null,
    output,
    detailedExitcode: values['detailed-exitcode'] === true,
    overrideWindow: values['override-window'] === true,
    help: values.help === true,
  };
}
