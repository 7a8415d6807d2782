import { parseArgs } from 'node:util';
import { UsageError } from '../errors.js';

export type Mode = 'daemon' | 'reconcile' | 'dry-run' | 'validate' | 'emulator';
export type OutputFormat = 'text' | 'json' | 'markdown';

export interface CliArgs {
  mode: Mode;
  /** Set when `--config` was given; otherwise the default file is used if it exists. */
  config: string | null;
  source: string | null;
  output: OutputFormat;
  detailedExitcode: boolean;
  prune: boolean;
  force: boolean;
  sourceDir: string | null;
  organization: string | null;
  apiUrl: string | null;
  /** --state-dir; wins over STATE_DIR and `state-dir`. */
  stateDir: string | null;
  /** --no-cache: the persisted code cache is neither read nor written. */
  noCache: boolean;
  port: number;
  emulatorSeed: string | null;
  help: boolean;
  version: boolean;
}

export const USAGE = `Usage:
  policy-pool-sync [--config FILE]                    run the daemon
  policy-pool-sync --reconcile [options]              one pass, apply, exit
  policy-pool-sync --dry-run [options]                one pass, print the plan, change nothing
  policy-pool-sync --validate [options]               check the declared repo only, no API call
  policy-pool-sync --emulator [--port N] [--emulator-seed FILE]
                                                      serve the local API emulator

Options:
  --config FILE            config file (default config/default.yaml)
  --source NAME            only that source
  --output FORMAT          text, json or markdown (default text)
  --detailed-exitcode      exit 2 when the plan has changes and nothing failed
  --prune                  delete live resources that are not declared
  --force                  allow more deletions than max-deletes
  --source-dir DIR         declared repo folder, for use without a config file
  --organization NAME      organization, for use without a config file
  --api-url URL            API base URL ending in /api/v2 (else API_BASE_URL, else api.url)
  --state-dir DIR          git clones and the code cache (else STATE_DIR, else state-dir)
  --no-cache               neither read nor write the code cache for this run

The token comes from API_TOKEN or api.token-file.
Exit codes: 0 success, 1 error, 2 changes planned (with --detailed-exitcode).
`;

const MODES = ['reconcile', 'dry-run', 'validate', 'emulator'] as const;

export function parseCliArgs(argv: string[]): CliArgs {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: false,
      options: {
        reconcile: { type: 'boolean' },
        'dry-run': { type: 'boolean' },
        validate: { type: 'boolean' },
        emulator: { type: 'boolean' },
        config: { type: 'string' },
        source: { type: 'string' },
        output: { type: 'string', default: 'text' },
        'detailed-exitcode': { type: 'boolean' },
        prune: { type: 'boolean' },
        force: { type: 'boolean' },
        'source-dir': { type: 'string' },
        organization: { type: 'string' },
        'api-url': { type: 'string' },
        'state-dir': { type: 'string' },
        'no-cache': { type: 'boolean' },
        port: { type: 'string', default: '0' },
        'emulator-seed': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
        version: { type: 'boolean' },
      },
    }));
  } catch (error) {
    throw new UsageError(`${(error as Error).message}\n\n${USAGE}`);
  }
  const modes = MODES.filter((m) => values[m] === true);
  if (modes.length > 1) throw new UsageError(`choose one of --${modes.join(', --')}`);
  const output = values.output ?? 'text';
  if (output !== 'text' && output !== 'json' && output !== 'markdown') {
    throw new UsageError(`--output must be text, json or markdown, not "${output}"`);
  }
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`--port must be a port number, not "${values.port}"`);
  if ((values['source-dir'] === undefined) !== (values.organization === undefined) && values.config === undefined) {
    throw new UsageError('--source-dir and --organization go together');
  }
  return {
    mode: modes[0] ?? 'daemon',
    config: values.config ?? null,
    source: values.source ?? null,
    output,
    detailedExitcode: values['detailed-exitcode'] === true,
    prune: values.prune === true,
    force: values.force === true,
    sourceDir: values['source-dir'] ?? null,
    organization: values.organization ?? null,
    apiUrl: values['api-url'] ?? null,
    stateDir: values['state-dir'] ?? null,
    noCache: values['no-cache'] === true,
    port,
    emulatorSeed: values['emulator-seed'] ?? null,
    help: values.help === true,
    version: values.version === true,
  };
}
