import { parseArgs, type ParseArgsConfig } from 'node:util';
import { UsageError } from '../errors.js';
import { closest } from '../suggest.js';
import { parameterPatternProblem } from '../config/parameter-allowance.js';

export type Mode = 'daemon' | 'reconcile' | 'dry-run' | 'validate' | 'emulator' | 'show' | 'export';
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
  /** `--allow-empty`: every selected source may declare nothing, as with `allow-empty: true`. */
  allowEmpty: boolean;
  /** `--adopt`: every selected source takes over policies carrying another source's marker, as with `adopt: true`. */
  adopt: boolean;
  /** `--strict-imports`: imports that fail on the service are errors in every selected source, as with `strict-imports: true`. */
  strictImports: boolean;
  /** `--max-agent-pools N`: every selected source may declare up to N agent pools, as with `max-agent-pools: N`; null: the config's. */
  maxAgentPools: number | null;
  /** `--evidence-window DAYS`, `--evidence-max-requests N`, `--evidence-max-seconds N`: every selected source's `evidence:`; null: the config's. */
  evidence: { windowDays: number | null; maxRequests: number | null; maxSeconds?: number | null };
  /** `--timeout`: seconds one one-shot pass may take. @default 1800 */
  timeoutSeconds: number;
  sourceDir: string | null;
  organization: string | null;
  apiUrl: string | null;
  /** --state-dir; wins over STATE_DIR and `state-dir`. */
  stateDir: string | null;
  /** --no-cache: the persisted code cache is neither read nor written. */
  noCache: boolean;
  /** `--dry-run --out FILE`: also save the plan there, to apply later with --plan. */
  out: string | null;
  /** `--reconcile --plan FILE`: apply exactly that saved plan. */
  plan: string | null;
  /** `--show FILE`: print that saved plan. */
  show: string | null;
  /** `--native-kind`: the API's word for the native kind; wins over `api.native-kind`. */
  nativeKind: 'native' | 'sentinel' | null;
  /** `--parameter-env PATTERN` (repeatable): variables a set's `{env: NAME}` may read, added to the config's. */
  parameterEnv: string[];
  /** `--parameter-files DIR`: the folder a set's `{file: PATH}` may read under, in place of the config's. */
  parameterFiles: string | null;
  /** `--token-dir DIR`: the folder declared agent tokens are delivered to, in place of the config's. */
  tokenDir: string | null;
  /** `--export DIR`: write a declared repo from the live organization there. */
  exportDir: string | null;
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
  policy-pool-sync --show FILE [--output FORMAT]      print a plan saved with --out, no API call
  policy-pool-sync --export DIR --organization NAME   write a declared repo from the live organization, no API write
  policy-pool-sync --emulator [--port N] [--emulator-seed FILE]
                                                      serve the local API emulator
  policy-pool-sync status|sync|suspend|resume [--source NAME] [--daemon URL]
                                                      ask a running daemon (policy-pool-sync sync --help)

Options:
  -h, --help               show this help and exit
  -v, --version            print the version and exit
  --config FILE            config file (default config/default.yaml)
  --source NAME            only that source; with --source-dir, the source's name (written into ownership markers)
  --output FORMAT          text, json or markdown (default text)
  --detailed-exitcode      exit 2 when the plan has changes and nothing failed
  --prune                  delete live resources that are not declared
  --force                  allow more deletions than max-deletes
  --allow-empty            accept a source that declares nothing (as allow-empty: true)
  --adopt                  take over policies that carry another source's marker (as adopt: true)
  --strict-imports         imports that fail on the service (Sentinel modules, Rego packages not declared) are errors
  --max-agent-pools N      declare up to N agent pools (as max-agent-pools: N; default 1): the tool's own guard
  --evidence-window 30d    how far back a tightening change's evidence reads runs (as evidence.window)
  --evidence-max-requests N  the most requests a plan spends reading runs (as evidence.max-requests; default 500)
  --evidence-max-seconds N   the most time a plan spends reading runs (as evidence.max-seconds; default 120)
  --timeout SECONDS        the limit of a --reconcile or --dry-run pass (default 1800)
  --source-dir DIR         declared repo folder, for use without a config file
  --organization NAME      organization, with --source-dir (not needed by --validate)
  --api-url URL            API base URL ending in /api/v2 (else API_BASE_URL, else api.url)
  --state-dir DIR          git clones and the code cache (else STATE_DIR, else state-dir)
  --no-cache               neither read nor write the code cache for this run
  --out FILE               --dry-run: also save the plan to FILE (JSON), to apply later with --plan
  --plan FILE              --reconcile: apply exactly the plan saved in FILE, or nothing if it is stale (with the dry run's flags again)
  --show FILE              print the plan saved in FILE as text, json or markdown (--output), with no API call
  --native-kind WORD       the API's word for the native kind: native or sentinel (the hosted service); unset: learned from the API
  --parameter-env PATTERN  a variable a policy set's {env: NAME} may read: a name, or a prefix ending in *
                           (POLICY_PARAM_*); repeat it for more (as parameters.env; nothing by default)
  --parameter-files DIR    the folder a policy set's {file: PATH} may read under (as parameters.files; none by default)
  --token-dir DIR          the folder a pool's agent tokens are delivered to (deliver-to {file: NAME}; as tokens.dir; none by default)
  --export DIR             write the live organization as a declared repo into DIR (new or empty; --force writes over)
  --port N                 --emulator: the port to listen on (default 0: any free port)
  --emulator-seed FILE     --emulator: YAML saying what exists before the first request

Environment:
  API_TOKEN                the API token (else api.token-file); the emulator accepts it as its token
  API_BASE_URL             the API URL when --api-url is not given (overrides api.url)
  LISTEN_ADDRESS           the daemon's host:port (overrides listen)
  STATE_DIR                git clones and the code cache (overrides state-dir; --state-dir wins)
  API_NATIVE_KIND          native or sentinel: the API's word for the native kind (overrides api.native-kind;
                           --native-kind wins)
  SHUTDOWN_TIMEOUT         seconds a stop (SIGINT, SIGTERM) waits for the changes under way (overrides shutdown-timeout)
  LEADER_ELECTION          etcd or kubernetes: the daemon runs under leader election (docs/daemon.md); each of
                           LEADER_ELECTION_ENDPOINTS, _LEASE_DURATION, _RENEW_DEADLINE, _RETRY_PERIOD and _ADDRESS
                           replaces its key of leader-election:
  LEADER_ELECTION_LEASE_NAME the lease's name (replaces lease-name; default policy-pool-sync)
  WEBHOOK_SECRET           the webhook secret (the variable that webhook-secret-env names)
  STATUS_TOKEN             a token the daemon requires on /status, /status.html and /metrics
  GIT_CONFIG_COUNT         with GIT_CONFIG_KEY_n and GIT_CONFIG_VALUE_n: git settings for git sources, e.g. a
                           credential header (http.<repo URL>.extraHeader) kept out of the URL, .git/config and ps
  HTTP_PROXY               the proxy of http:// requests: the API, downloads, notifications, the PR comment (also http_proxy)
  HTTPS_PROXY              the proxy of https:// requests (also https_proxy; else HTTP_PROXY); git is given the same answer
  NO_PROXY                 hosts reached without a proxy: host, .domain, host:port, IP, CIDR (10.0.0.0/8, fd00::/8) or *
                           (also no_proxy); loopback (localhost, 127.0.0.0/8, ::1) always
  CONTROL_TOKEN            the token of POST /sources/NAME/sync|suspend|resume (without it they answer 403)
  KUBERNETES_SERVICE_HOST  with KUBERNETES_SERVICE_PORT (set in every pod): the API server of leader-election's
                           kubernetes store
  KUBERNETES_SERVICE_PORT  (set in every pod)
  LOG_LEVEL                trace, debug, info (default), warn, error, fatal or silent
  LOG_FORMAT               pretty or json (default: pretty on a terminal and, one-shot, in CI; json otherwise)
  CI                       set (not false or 0), or GITHUB_ACTIONS=true: a one-shot run logs readable lines by default
  POLICY_POOL_SYNC_ACTION  true (the GitHub Action sets it): advice in errors names the action's inputs, not flags
  GITHUB_ACTIONS           true: each error and warning is also a workflow command, an annotation on the pull request
  GITHUB_SERVER_URL        with GITHUB_REPOSITORY, GITHUB_RUN_ID and GITHUB_RUN_ATTEMPT: the run the Markdown plan links to
  GITHUB_REPOSITORY        (set by GitHub Actions)
  GITHUB_RUN_ID            (set by GitHub Actions)
  GITHUB_RUN_ATTEMPT       (set by GitHub Actions)
  NO_COLOR                 no colour in the text plan
  FORCE_COLOR              colour in the text plan even where the terminal does not say it has colour (not 0)

Exit codes:
  0  success
  1  any error (the message says what and where)
  2  with --detailed-exitcode: the plan has changes (deletions count) and nothing failed
  130, 143  stopped by SIGINT, SIGTERM (what was and was not applied is printed)
`;

/** Every flag the command line takes; `--help` lists each of them. */
export const OPTIONS = {
  reconcile: { type: 'boolean' },
  'dry-run': { type: 'boolean' },
  validate: { type: 'boolean' },
  emulator: { type: 'boolean' },
  config: { type: 'string' },
  source: { type: 'string' },
  output: { type: 'string' },
  'detailed-exitcode': { type: 'boolean' },
  prune: { type: 'boolean' },
  force: { type: 'boolean' },
  'allow-empty': { type: 'boolean' },
  adopt: { type: 'boolean' },
  'strict-imports': { type: 'boolean' },
  'max-agent-pools': { type: 'string' },
  'evidence-window': { type: 'string' },
  'evidence-max-requests': { type: 'string' },
  'evidence-max-seconds': { type: 'string' },
  timeout: { type: 'string' },
  'source-dir': { type: 'string' },
  organization: { type: 'string' },
  'api-url': { type: 'string' },
  'state-dir': { type: 'string' },
  'no-cache': { type: 'boolean' },
  out: { type: 'string' },
  plan: { type: 'string' },
  show: { type: 'string' },
  'native-kind': { type: 'string' },
  'parameter-env': { type: 'string', multiple: true },
  'parameter-files': { type: 'string' },
  'token-dir': { type: 'string' },
  export: { type: 'string' },
  port: { type: 'string', default: '0' },
  'emulator-seed': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean', short: 'v' },
} as const satisfies ParseArgsConfig['options'];

/** The one-shot pass limit when --timeout is not given: 30 minutes. */
export const DEFAULT_TIMEOUT_SECONDS = 1800;

const MODES = ['reconcile', 'dry-run', 'validate', 'emulator'] as const;

export function parseCliArgs(argv: string[]): CliArgs {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: false,
      options: OPTIONS,
    }));
  } catch (error) {
    throw new UsageError(`${unknownFlagMessage(argv) ?? (error as Error).message}\nRun policy-pool-sync --help for every flag.`);
  }
  const modes = MODES.filter((m) => values[m] === true);
  if (modes.length > 1) throw new UsageError(`choose one of --${modes.join(', --')}`);
  const output = values.output ?? 'text';
  if (output !== 'text' && output !== 'json' && output !== 'markdown') {
    throw new UsageError(`--output must be text, json or markdown, not "${output}"`);
  }
  const nativeKind = values['native-kind'] ?? null;
  if (nativeKind !== null && nativeKind !== 'native' && nativeKind !== 'sentinel') {
    throw new UsageError(`--native-kind must be native or sentinel, not "${nativeKind}"`);
  }
  const parameterEnv = values['parameter-env'] ?? [];
  for (const pattern of parameterEnv) {
    const problem = parameterPatternProblem(pattern);
    if (problem !== null) throw new UsageError(`--parameter-env ${problem}`);
  }
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`--port must be a port number, not "${values.port}"`);
  if (values.show !== undefined && modes.length > 0) throw new UsageError(`--show FILE prints a saved plan; it goes with no --${modes[0]}`);
  if (values.export !== undefined && (modes.length > 0 || values.show !== undefined)) throw new UsageError(`choose one of --export, --${[...modes, ...(values.show === undefined ? [] : ['show'])].join(', --')}`);
  const mode = values.export !== undefined ? 'export' : values.show !== undefined ? 'show' : (modes[0] ?? 'daemon');
  if (mode === 'daemon') checkDaemonFlags(values);
  if (mode === 'export' && values.organization === undefined) throw new UsageError('--export DIR needs --organization NAME (and --api-url URL, or API_BASE_URL)');
  const maxAgentPools = values['max-agent-pools'] === undefined ? null : Number(values['max-agent-pools']);
  if (maxAgentPools !== null && (!Number.isInteger(maxAgentPools) || maxAgentPools < 1)) {
    throw new UsageError(`--max-agent-pools must be a whole number of at least 1, not "${values['max-agent-pools']}"`);
  }
  const timeoutSeconds = values.timeout === undefined ? DEFAULT_TIMEOUT_SECONDS : Number(values.timeout);
  if (!Number.isFinite(timeoutSeconds) || timeoutSeconds <= 0) throw new UsageError(`--timeout must be a number of seconds, not "${values.timeout}"`);
  if (values.config === undefined && values['source-dir'] !== undefined && values.prune === true && values.source === undefined) {
    throw new UsageError(
      '--prune with --source-dir needs --source NAME: the name is written into the ownership marker of each policy, and prune ' +
        'deletes only the policies that carry it. Give each repo its own name, or two repos pruning one organization delete each other\'s policies.',
    );
  }
  if (values.out !== undefined && mode !== 'dry-run') throw new UsageError('--out FILE goes with --dry-run (it saves the plan to apply later with --reconcile --plan FILE)');
  if (values.plan !== undefined && mode !== 'reconcile') throw new UsageError('--plan FILE goes with --reconcile (make the plan with --dry-run --out FILE)');
  // The sources come from one place: a config file, or the flags. Both given, one would be dropped without a word.
  const flagSources = (['source-dir', 'organization'] as const).filter((flag) => values[flag] !== undefined);
  if (values.config !== undefined && flagSources.length > 0 && mode !== 'export') {
    throw new UsageError(
      `${flagSources.map((flag) => `--${flag}`).join(' and ')} ${flagSources.length === 1 ? 'is' : 'are'} for use without a config file; ` +
        '--config FILE names the sources and their organizations: drop one or the other (--source NAME picks one source of the file)',
    );
  }
  if (values.config === undefined && values['source-dir'] === undefined && values.organization !== undefined && mode !== 'export') {
    throw new UsageError('--organization goes with --source-dir');
  }
  if (values.config === undefined && values['source-dir'] !== undefined && values.organization === undefined && mode !== 'validate') {
    throw new UsageError('--source-dir needs --organization (only --validate does without)');
  }
  return {
    mode,
    config: values.config ?? null,
    source: values.source ?? null,
    output,
    detailedExitcode: values['detailed-exitcode'] === true,
    prune: values.prune === true,
    force: values.force === true,
    allowEmpty: values['allow-empty'] === true,
    adopt: values.adopt === true,
    strictImports: values['strict-imports'] === true,
    maxAgentPools,
    evidence: evidenceFlags(values['evidence-window'], values['evidence-max-requests'], values['evidence-max-seconds']),
    timeoutSeconds,
    sourceDir: values['source-dir'] ?? null,
    organization: values.organization ?? null,
    apiUrl: values['api-url'] ?? null,
    stateDir: values['state-dir'] ?? null,
    noCache: values['no-cache'] === true,
    out: values.out ?? null,
    plan: values.plan ?? null,
    show: values.show ?? null,
    nativeKind,
    parameterEnv,
    parameterFiles: values['parameter-files'] ?? null,
    tokenDir: values['token-dir'] ?? null,
    exportDir: values.export ?? null,
    port,
    emulatorSeed: values['emulator-seed'] ?? null,
    help: values.help === true,
    version: values.version === true,
  };
}

/** The flags of a one pass (--dry-run, --reconcile, --validate); given without a mode, they would start the daemon. */
const ONE_SHOT_FLAGS = [
  'source', 'source-dir', 'organization', 'api-url', 'output', 'detailed-exitcode', 'out', 'plan', 'prune', 'force', 'adopt', 'allow-empty', 'timeout', 'no-cache', 'strict-imports', 'native-kind',
  'max-agent-pools', 'parameter-env', 'parameter-files', 'token-dir', 'evidence-window', 'evidence-max-requests', 'evidence-max-seconds',
] as const;

/**
 * Without a mode flag the daemon runs, applying for ever: it starts only from a config file (or with no flags at all),
 * never because a one-shot flag was given and the mode forgotten. `--no-cache` goes with the daemon only beside `--config`.
 */
function checkDaemonFlags(values: Partial<Record<(typeof ONE_SHOT_FLAGS)[number] | 'config', unknown>>): void {
  const given = ONE_SHOT_FLAGS.filter((flag) => values[flag] !== undefined && values[flag] !== false);
  const misplaced = given.filter((flag) => !(flag === 'no-cache' && values.config !== undefined));
  if (misplaced.length === 0) return;
  const flags = misplaced.map((flag) => `--${flag}`).join(', ');
  throw new UsageError(
    `${flags} ${misplaced.length === 1 ? 'goes' : 'go'} with a one-shot mode: add --dry-run (print the plan), --reconcile (apply it) or --validate ` +
      '(check the declared repo). Without a mode policy-pool-sync runs the daemon, which applies until stopped; it starts only from a config file.',
  );
}

/** "unknown flag --sourcedir: did you mean --source-dir?" for the first flag that is not one of OPTIONS; null if every flag is known. */
function unknownFlagMessage(argv: string[]): string | null {
  const { tokens } = parseArgs({ args: argv, options: OPTIONS, strict: false, allowPositionals: true, tokens: true });
  const names = Object.keys(OPTIONS);
  for (const token of tokens) {
    if (token.kind !== 'option' || token.name in OPTIONS) continue;
    const guess = closest(token.name, names);
    return `unknown flag ${token.rawName}${guess === null ? '' : `: did you mean --${guess}?`}`;
  }
  return null;
}

/** The longest evidence window: the organization's run list covers the last year unless `filter[timeframe]` says (`run.mdx`). */
const MAX_EVIDENCE_WINDOW_DAYS = 365;

/** `--evidence-window 30d`, `--evidence-max-requests N` and `--evidence-max-seconds N`, checked. */
function evidenceFlags(window: string | undefined, maxRequests: string | undefined, maxSecondsText?: string): CliArgs['evidence'] {
  if (window !== undefined && !/^[1-9][0-9]{0,2}d$/.test(window)) throw new UsageError(`--evidence-window must be a number of days such as 30d, not "${window}"`);
  if (window !== undefined && Number.parseInt(window, 10) > MAX_EVIDENCE_WINDOW_DAYS) {
    throw new UsageError(`--evidence-window must be at most ${MAX_EVIDENCE_WINDOW_DAYS}d, not "${window}": the organization's run list reads only the last ${MAX_EVIDENCE_WINDOW_DAYS} days`);
  }
  const max = maxRequests === undefined ? null : Number(maxRequests);
  if (max !== null && (!Number.isInteger(max) || max < 0)) throw new UsageError(`--evidence-max-requests must be a whole number, not "${maxRequests}"`);
  const maxSeconds = maxSecondsText === undefined ? null : Number(maxSecondsText);
  if (maxSeconds !== null && (!Number.isInteger(maxSeconds) || maxSeconds < 1 || maxSeconds > 3600)) {
    throw new UsageError(`--evidence-max-seconds must be a whole number of seconds from 1 to 3600, not "${maxSecondsText}"`);
  }
  return { windowDays: window === undefined ? null : Number.parseInt(window, 10), maxRequests: max, maxSeconds };
}
