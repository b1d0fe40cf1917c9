// `wasm-ccm plugin test`: runs a provider plugin through the conformance kit against the vendor's cloud and prints
// a pass/fail table. Exit status: 0 PASSED (skips included), 1 a check failed, 2 bad usage or input, 3 INCOMPLETE.
import { parseArgs } from 'node:util';
import { createJsonLineLogger } from '../log/logger.ts';
import {
  type ConformanceReport,
  exitCodeOf,
  type Fixture,
  formatReport,
  loadFixtureText,
  runConformance,
} from '../conformance/index.ts';
import { DEFAULT_MAX_MODULE_MB } from '../plugin/index.ts';
import { errorMessage } from '../util/error-message.ts';
import { allowedHostList, PROVIDER_FLAG_OPTIONS } from './provider-flags.ts';
import {
  checkRegularFileSync,
  CONFIG_FILE_CAP,
  moduleFileCap,
  readRegularFile,
  unreadableReason,
} from '../util/read-regular-file.ts';

export const USAGE = `Usage: wasm-ccm plugin test --plugin=<file.wasm> --fixture=<file.json|yaml> [options]

Runs the plugin through the upstream cloud-provider contract against its cloud and prints a pass/fail table.

  --plugin=FILE         the provider plugin (.wasm, or gzipped .wasm.gz)
  --fixture=FILE        JSON or YAML: clusterName, nodes {running, stopped, missing} as {name, providerID?,
                        labels?, annotations?, addresses?}, optional service (with badAnnotation {key, value}),
                        nodeSets {initial, updated, filtered [{name, reason}]}, route {destinationCIDR,
                        targetNode}, backendProbe {url with {lb}, {ingress} or {uid}, loadBalancers?, path,
                        identity instanceID|address}, loadBalancerProbe {url, path}; a probe your cloud
                        cannot offer: {unavailable: <reason>} in its place
  --cloud-config=FILE   the cloud config handed to ccm_initialize (default: none)
  --credentials=FILE    credentials the host attaches to the plugin's HTTP requests (host format)
  --allowed-hosts=LIST  hosts the plugin may reach, host or host:port, comma-separated (repeatable)
  --timeout=MS          deadline of each plugin call (default 10000)
  --json                print the report as JSON (results, warnings, notProbed, summary {passed, failed,
                        skipped, incomplete, verdict, ok})
  --verbose             print the runtime's and the plugin's log records (JSON lines) to stderr
  -h, --help            this text

Exit status: 0 PASSED (every check passed or was skipped for a stated reason), 1 FAILED (a check failed),
2 usage or input error, 3 INCOMPLETE (no check failed, but one could not look at the cloud: a probe is missing
from the fixture and no reason is given).`;

export interface PluginTestIO {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
}

const defaultIO: PluginTestIO = {
  stdout: (t) => process.stdout.write(t),
  stderr: (t) => process.stderr.write(t),
};

class UsageError extends Error {}

interface Parsed {
  plugin: string;
  fixture: string;
  cloudConfig: string | undefined;
  credentials: string | undefined;
  allowedHosts: string[];
  timeoutMs: number | undefined;
  json: boolean;
  verbose: boolean;
  help: boolean;
}

function parse(args: readonly string[]): Parsed {
  let values;
  try {
    ({ values } = parseArgs({
      args: [...args],
      strict: true,
      allowPositionals: false,
      options: {
        ...PROVIDER_FLAG_OPTIONS,
        timeout: { type: 'string' },
        json: { type: 'boolean' },
        verbose: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (err) {
    throw new UsageError(errorMessage(err));
  }
  const help = values.help ?? false;
  if (!help && !values.plugin) throw new UsageError('--plugin is required');
  if (!help && !values.fixture) throw new UsageError('--fixture is required');
  let timeoutMs: number | undefined;
  if (values.timeout !== undefined) {
    timeoutMs = Number(values.timeout);
    if (!Number.isInteger(timeoutMs) || timeoutMs <= 0)
      throw new UsageError(`--timeout: "${values.timeout}" is not a positive integer`);
  }
  const allowedHosts = allowedHostList(values['allowed-hosts']);
  return {
    plugin: values.plugin ?? '',
    fixture: values.fixture ?? '',
    cloudConfig: values['cloud-config'],
    credentials: values.credentials,
    allowedHosts,
    timeoutMs,
    json: values.json ?? false,
    verbose: values.verbose ?? false,
    help,
  };
}

async function readInput(path: string, what: string): Promise<string> {
  try {
    return (await readRegularFile(path, CONFIG_FILE_CAP)).toString('utf8');
  } catch (err) {
    throw new UsageError(`cannot read ${what} ${path}: ${unreadableReason(err)}`);
  }
}

// The kit reads the module itself, later: a FIFO or /dev/zero is refused here, before it could hang or flood that read.
function checkModuleFile(path: string): void {
  try {
    checkRegularFileSync(path, moduleFileCap(DEFAULT_MAX_MODULE_MB * 1048576));
  } catch (err) {
    throw new UsageError(`cannot read plugin ${path}: ${unreadableReason(err)}`);
  }
}

/** Runs `wasm-ccm plugin test` with the arguments after the subcommand; resolves to the exit status. */
export async function runPluginTest(args: readonly string[], io: PluginTestIO = defaultIO): Promise<number> {
  let parsed: Parsed;
  let fixture: Fixture;
  let cloudConfig = '';
  try {
    parsed = parse(args);
    if (parsed.help) {
      io.stdout(`${USAGE}\n`);
      return 0;
    }
    fixture = await loadFixtureText(await readInput(parsed.fixture, 'fixture'), parsed.fixture);
    if (parsed.cloudConfig !== undefined) cloudConfig = await readInput(parsed.cloudConfig, 'cloud config');
    checkModuleFile(parsed.plugin);
  } catch (err) {
    io.stderr(`wasm-ccm plugin test: ${errorMessage(err)}\n`);
    if (err instanceof UsageError) io.stderr('Run with --help for usage.\n');
    return 2;
  }

  const logger = parsed.verbose ? createJsonLineLogger({ level: 'debug', write: io.stderr }) : undefined;
  let report: ConformanceReport;
  try {
    report = await runConformance({
      pluginPath: parsed.plugin,
      cloudConfig,
      fixture,
      credentialsFile: parsed.credentials,
      allowedHosts: parsed.allowedHosts,
      callTimeoutMs: parsed.timeoutMs,
      logger,
    });
  } catch (err) {
    io.stderr(`wasm-ccm plugin test: ${errorMessage(err)}\n`);
    return 2;
  }
  io.stdout(parsed.json ? `${JSON.stringify(report, null, 2)}\n` : formatReport(report));
  return exitCodeOf(report);
}
