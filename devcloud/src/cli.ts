// Command-line parsing for the devcloud command (`npm run devcloud --` in the repository). Pure (argv + env in, options or an error out) so it
// is tested without spawning; main.ts turns an error into exit code 2.
import { parseArgs } from 'node:util';
import { ApiError } from './errors.ts';
import type { DevcloudOptions } from './index.ts';
import { defaultKnobs, type KnobsPatch, mergeKnobs } from './knobs.ts';
import { IpPool } from './net/ip-pool.ts';

export const HELP = `Usage: devcloud --token T [options] [-- COMMAND [ARG...]]

devcloud: a small simulated IaaS (instances, load balancers, routes) for wasm-ccm tests and demos.
API reference: the README.md of @wasm-ccm/devcloud (devcloud/README.md in the wasm-ccm repository).
With a COMMAND after --, devcloud serves while the command runs, then stops and exits with its status
(SIGINT and SIGTERM are passed on to it).

Server
  --port N                 listen port (default 8990; 0 = any free port)
  --host ADDR              listen address (default 127.0.0.1)
  --token T                bearer token for the cloud API (or env DEVCLOUD_TOKEN; required)
  --admin-token T          bearer token for /v1/admin (or env DEVCLOUD_ADMIN_TOKEN; default: --token)
  --state-file PATH        persist state here and reload it on start (default: memory only)
  --persist-delay-ms N     longest a change waits before it is written (default 100)
  --vip-pool CIDR          IPv4 CIDR for LB VIPs; repeat or comma-separate (default 198.18.0.0/16)
  --internal-cidr CIDR     IPv4 CIDR for generated instance InternalIPs (default 10.0.0.0/16)
  --zone ZONE=REGION       a zone and its region; repeat (default dc-east-1a/b/c=dc-east-1, dc-west-1a=dc-west-1)
  --instances FILE         create these instances at start: {"instances": [{"id"?, "name", "zone"?,
                           "type"?, "labels"?, "state"?: "running"|"stopped"}]}
  --log                    log every request to stdout

Faults (also settable at run time: PATCH /v1/admin/knobs)
  --latency-ms N           delay added to every cloud API call
  --latency KIND=MS        delay for one operation, "read" or "write"; repeat
  --error-rate F           fraction 0..1 of cloud API calls answered 500/503
  --seed N                 seed for --error-rate, for reproducible runs
  --throttle-rate R        token bucket: R requests/s, excess answered 429 + Retry-After
  --throttle-burst N       bucket size (default: R rounded up)
  --outage                 start in an outage: every cloud API call answered 503

  -h, --help               show this help
`;

export interface CliRun {
  kind: 'run';
  options: DevcloudOptions;
  /** --instances: the file of instances to create at start. */
  instancesFile?: string;
  /** What follows `--`: a command to run while devcloud serves. */
  command?: string[];
}

export type CliResult = { kind: 'help' } | CliRun | { kind: 'error'; message: string };

class FlagError extends Error {}

function number(flag: string, text: string, min: number, max: number, integer: boolean): number {
  const n = Number(text);
  if (text.trim() === '' || !Number.isFinite(n) || n < min || n > max || (integer && !Number.isInteger(n))) {
    throw new FlagError(`--${flag}: "${text}" is not ${integer ? 'an integer' : 'a number'} in ${min}..${max}`);
  }
  return n;
}

function pair(flag: string, text: string): [string, string] {
  const eq = text.indexOf('=');
  if (eq <= 0 || eq === text.length - 1) throw new FlagError(`--${flag}: "${text}" is not of the form KEY=VALUE`);
  return [text.slice(0, eq), text.slice(eq + 1)];
}

const flags = {
  port: { type: 'string' },
  host: { type: 'string' },
  token: { type: 'string' },
  'admin-token': { type: 'string' },
  'state-file': { type: 'string' },
  'persist-delay-ms': { type: 'string' },
  'vip-pool': { type: 'string', multiple: true },
  'internal-cidr': { type: 'string' },
  zone: { type: 'string', multiple: true },
  instances: { type: 'string' },
  log: { type: 'boolean' },
  'latency-ms': { type: 'string' },
  latency: { type: 'string', multiple: true },
  'error-rate': { type: 'string' },
  seed: { type: 'string' },
  'throttle-rate': { type: 'string' },
  'throttle-burst': { type: 'string' },
  outage: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

export function parseCli(argv: readonly string[], env: NodeJS.ProcessEnv = {}): CliResult {
  try {
    return parse(argv, env);
  } catch (err) {
    if (err instanceof FlagError) return { kind: 'error', message: err.message };
    // node:util says "Unknown option '--x'. To specify a positional argument ..."; the first sentence is the point.
    const message = err instanceof Error ? (err.message.split('. ')[0] ?? err.message) : String(err);
    return { kind: 'error', message };
  }
}

function parse(argv: readonly string[], env: NodeJS.ProcessEnv): CliResult {
  const dashes = argv.indexOf('--');
  const own = dashes === -1 ? argv : argv.slice(0, dashes);
  const command = dashes === -1 ? undefined : argv.slice(dashes + 1);
  const { values: v } = parseArgs({ args: [...own], options: flags, strict: true, allowPositionals: false });
  if (v.help) return { kind: 'help' };
  if (command?.length === 0) throw new FlagError('--: name the command to run after it');

  const token = v.token ?? env.DEVCLOUD_TOKEN;
  if (!token) throw new FlagError('--token: required (or set DEVCLOUD_TOKEN)');
  const adminToken = v['admin-token'] ?? env.DEVCLOUD_ADMIN_TOKEN;
  const options: DevcloudOptions = {
    token,
    port: v.port === undefined ? 8990 : number('port', v.port, 0, 65535, true),
  };
  if (adminToken) options.adminToken = adminToken;
  if (v.host !== undefined) options.host = v.host;
  if (v['state-file'] !== undefined) options.stateFile = v['state-file'];
  if (v['persist-delay-ms'] !== undefined) {
    options.persistDelayMs = number('persist-delay-ms', v['persist-delay-ms'], 0, 3_600_000, true);
  }
  if (v['vip-pool']) {
    const pool = v['vip-pool'].flatMap((s) => s.split(',')).map((s) => s.trim());
    checkPool('vip-pool', pool);
    options.vipPool = pool;
  }
  if (v['internal-cidr'] !== undefined) {
    checkPool('internal-cidr', [v['internal-cidr']]);
    options.internalCidr = v['internal-cidr'];
  }
  if (v.zone) {
    const zones = v.zone.map((z) => pair('zone', z)).map(([name, region]) => ({ name, region }));
    const seen = new Set<string>();
    for (const z of zones) {
      if (seen.has(z.name)) throw new FlagError(`--zone: zone "${z.name}" given twice`);
      seen.add(z.name);
    }
    options.zones = zones;
  }
  if (v.log) options.logger = true;
  options.knobs = knobsFrom(v);
  return {
    kind: 'run',
    options,
    ...(v.instances === undefined ? {} : { instancesFile: v.instances }),
    ...(command === undefined ? {} : { command }),
  };
}

function checkPool(flag: string, cidrs: string[]): void {
  try {
    new IpPool(cidrs);
  } catch (err) {
    throw new FlagError(`--${flag}: ${(err as Error).message}`);
  }
}

type Values = ReturnType<typeof parseArgs<{ options: typeof flags }>>['values'];

function knobsFrom(v: Values): KnobsPatch {
  const patch: KnobsPatch = {};
  if (v['latency-ms'] !== undefined) patch.latencyMs = number('latency-ms', v['latency-ms'], 0, 600_000, false);
  if (v.latency) {
    patch.latencyByKind = Object.fromEntries(
      v.latency.map((s) => pair('latency', s)).map(([kind, ms]) => [kind, number('latency', ms, 0, 600_000, false)]),
    );
  }
  if (v['error-rate'] !== undefined) patch.errorRate = number('error-rate', v['error-rate'], 0, 1, false);
  if (v.seed !== undefined) patch.errorSeed = number('seed', v.seed, 0, 0xffffffff, true);
  if (v['throttle-burst'] !== undefined && v['throttle-rate'] === undefined) {
    throw new FlagError('--throttle-burst: needs --throttle-rate');
  }
  if (v['throttle-rate'] !== undefined) {
    const ratePerSec = number('throttle-rate', v['throttle-rate'], 0.001, 1e9, false);
    const burst =
      v['throttle-burst'] === undefined
        ? Math.ceil(ratePerSec)
        : number('throttle-burst', v['throttle-burst'], 1, 1e9, true);
    patch.throttle = { ratePerSec, burst };
  }
  if (v.outage) patch.outage = true;
  try {
    // Catches what the flag parsers cannot know, such as an unknown operation name in --latency.
    mergeKnobs(defaultKnobs(), patch);
  } catch (err) {
    if (err instanceof ApiError)
      throw new FlagError(`--${err.field?.startsWith('latencyByKind') ? 'latency' : 'knobs'}: ${err.message}`);
    throw err;
  }
  return patch;
}
