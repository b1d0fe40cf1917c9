// The wasm-ccm command line: upstream cloud-controller-manager flags and defaults (upstream-parity.md), plus
// the flags the plugin runtime needs. Every invalid value is a FlagError naming the flag (exit 2).
import { isIP } from 'node:net';
import { LOG_FORMATS } from '../log/klog.ts';
import { type CIDR, parseClusterCIDRs } from '../net/cidr.ts';
import {
  loadPluginConfigFile,
  PluginConfigError,
  CredentialFileError,
  checkAllowedHost,
  checkCredentialsText,
  durationProblem,
  integerProblem,
  LIMIT_RANGES,
  type Range,
  SHA256_PIN,
  SHA256_PIN_WHAT,
  singlePluginConfig,
  DEFAULT_MAX_MODULE_MB,
  type PluginConfig,
} from '../plugin/index.ts';
import { errorMessage } from '../util/error-message.ts';
import { type ControllerName, resolveControllers } from './controllers.ts';
import { formatDuration } from '../util/duration.ts';
import {
  checkRegularFileSync,
  CONFIG_FILE_CAP,
  type FileCap,
  moduleFileCap,
  readRegularFileSync,
  unreadableReason,
} from '../util/read-regular-file.ts';
import { type FeatureGates, parseFeatureGates } from './feature-gates.ts';
import { compatWarnings, UPSTREAM_FLAGS } from './upstream-flags.ts';
import { FlagError, type FlagSpec, type FlagValues, parseFlags, usage } from './flagset.ts';

function positive(v: number): void {
  if (!(v > 0)) throw new Error(`must be greater than 0, got ${v}`);
}
function atLeastOne(v: number): void {
  if (!Number.isInteger(v) || v < 1) throw new Error(`must be an integer >= 1, got ${v}`);
}
function nonNegative(v: number): void {
  if (!Number.isInteger(v) || v < 0) throw new Error(`must be an integer >= 0, got ${v}`);
}
function port(v: number): void {
  if (!Number.isInteger(v) || v < 0 || v > 65535)
    throw new Error(`must be a port number 0..65535 (0 disables), got ${v}`);
}
function ipAddress(v: string): void {
  if (isIP(v) === 0) throw new Error(`"${v}" is not an IP address`);
}
// The --plugin-* defaults obey the plugin configuration's own rules (plugin/config/rules.ts).
function inRange(range: Range): (v: number) => void {
  return (v) => {
    const problem = integerProblem(v, range);
    if (problem !== undefined) throw new Error(problem);
  };
}
function durationIn(range: Range): (ms: number) => void {
  return (ms) => {
    const problem = durationProblem(ms, range, formatDuration(ms));
    if (problem !== undefined) throw new Error(problem);
  };
}
// Object names as the apiserver checks them, so a typo fails at start rather than at the first Lease request.
const DNS_LABEL = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;
const DNS_SUBDOMAIN = /^(?=.{1,253}$)[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
function matching(pattern: RegExp, what: string): (v: string) => void {
  return (v) => {
    if (!pattern.test(v)) throw new Error(`"${v}" is not ${what}`);
  };
}

const s = (help: string, def = ''): FlagSpec<'string'> => ({ type: 'string', default: def, help });
const b = (help: string, def: boolean): FlagSpec<'bool'> => ({ type: 'bool', default: def, help });
const d = (help: string, ms: number): FlagSpec<'duration'> => ({
  type: 'duration',
  default: ms,
  help,
  validate: positive,
});

export const CCM_FLAGS = {
  'cloud-provider': s('the provider to run; must equal the providerName the plugin describes (required)'),
  'cloud-config': s('path to the cloud provider configuration file, passed to the plugin as is'),
  controllers: {
    type: 'stringList',
    default: ['*'],
    help: 'controllers to run: * for all, name to enable, -name to disable (cloud-node, cloud-node-lifecycle, service, route)',
  } satisfies FlagSpec<'stringList'>,
  kubeconfig: s('path to a kubeconfig file (else in-cluster, else $KUBECONFIG)'),
  master: s('the address of the Kubernetes API server (overrides the kubeconfig)'),
  'kube-api-qps': {
    type: 'float',
    default: 20,
    help: 'QPS to use while talking with the API server',
    validate: positive,
  },
  'kube-api-burst': {
    type: 'int',
    default: 30,
    help: 'burst to use while talking with the API server',
    validate: atLeastOne,
  },
  'leader-elect': b('run leader election and start controllers only while leading', true),
  'leader-elect-lease-duration': d('how long a non-leader waits before trying to take an unrenewed lease', 15_000),
  'leader-elect-renew-deadline': d('how long the leader retries renewing before it gives up leading', 10_000),
  'leader-elect-retry-period': d('how long to wait between tries to acquire or renew', 2_000),
  'leader-elect-resource-lock': s('the lock type (only leases is supported)', 'leases'),
  'leader-elect-resource-name': {
    type: 'string',
    default: 'cloud-controller-manager',
    help: 'the name of the Lease',
    validate: matching(DNS_SUBDOMAIN, 'a valid object name (lower-case DNS subdomain)'),
  },
  'leader-elect-resource-namespace': {
    type: 'string',
    default: 'kube-system',
    help: 'the namespace of the Lease',
    validate: matching(DNS_LABEL, 'a valid namespace name (lower-case DNS label)'),
  },
  'secure-port': {
    type: 'int',
    default: 10258,
    help: 'HTTPS port for health and metrics (0 disables)',
    validate: port,
  },
  'bind-address': { type: 'string', default: '0.0.0.0', help: 'address to serve on', validate: ipAddress },
  'tls-cert-file': s('x509 certificate for HTTPS (a self-signed one is generated when empty)'),
  'tls-private-key-file': s('private key matching --tls-cert-file'),
  'authorization-always-allow-paths': {
    type: 'stringList',
    default: ['/healthz', '/readyz', '/livez'],
    help: 'paths served without authentication or authorization',
  } satisfies FlagSpec<'stringList'>,
  'delegated-auth': b(
    'check /metrics and /debug callers with TokenReview/SubjectAccessReview (false only with a loopback --bind-address)',
    true,
  ),
  'cluster-name': s('the instance prefix for the cluster', 'kubernetes'),
  'cluster-cidr': s('CIDR range of pods in the cluster (at most two, one per IP family)'),
  'configure-cloud-routes': b('create routes for the pod CIDRs allocated to nodes (needs --cluster-cidr)', true),
  'allocate-node-cidrs': b('whether pod CIDRs are allocated to nodes (accepted for compatibility)', false),
  'node-monitor-period': d('how often cloud-node-lifecycle checks nodes', 5_000),
  'route-reconciliation-period': d(
    'how often the route controller reconciles routes (unused with the watch-based routes gate)',
    10_000,
  ),
  'node-status-update-frequency': d('how often cloud-node refreshes node addresses', 300_000),
  'concurrent-service-syncs': { type: 'int', default: 1, help: 'services synced at once', validate: atLeastOne },
  'concurrent-node-syncs': { type: 'int', default: 1, help: 'nodes synced at once', validate: atLeastOne },
  plugin: s('path to the provider plugin (.wasm); shorthand for a --plugin-config with one provider'),
  'plugin-config': s(
    'path to the plugin configuration (YAML or JSON): providers, their sources (file or ConfigMap), pins, signatures, limits and loadBalancerClasses',
  ),
  'plugin-sha256': {
    type: 'string',
    default: '',
    help: 'refuse the plugin unless its sha256 is this (64 hex digits)',
    validate: (v: string) => {
      if (v !== '' && !SHA256_PIN.test(v)) throw new Error(`"${v}" is not ${SHA256_PIN_WHAT}`);
    },
  } satisfies FlagSpec<'string'>,
  'plugin-allowed-hosts': {
    type: 'stringList',
    default: [],
    help: 'hosts (host or host:port) the plugin may reach over HTTP',
    validate: (hosts: string[]) => hosts.forEach(checkAllowedHost),
  } satisfies FlagSpec<'stringList'>,
  'plugin-credentials': s(
    'path to a credentials file (e.g. a mounted Secret) the host attaches to plugin HTTP requests',
  ),
  'plugin-call-timeout': {
    type: 'duration',
    default: 10_000,
    help: 'deadline of one plugin call',
    validate: durationIn(LIMIT_RANGES.callTimeoutMs),
  },
  'plugin-memory-limit-mb': {
    type: 'int',
    default: 256,
    help: 'linear memory cap per plugin instance',
    validate: inRange(LIMIT_RANGES.memoryLimitMB),
  },
  'plugin-pool-size': {
    type: 'int',
    default: 0,
    help: 'most plugin instances serving calls at once (0: one per concurrent sync + 1); idle pools shrink',
    validate: (v: number) => {
      if (v !== 0) inRange(LIMIT_RANGES.poolSize)(v);
    },
  },
  v: {
    type: 'int',
    default: 0,
    shorthand: 'v',
    help: 'number for the log level verbosity (docs/logging.md: what each level adds)',
    validate: nonNegative,
  },
  'logging-format': {
    type: 'string',
    default: 'text',
    help: `log format: ${LOG_FORMATS.join(' or ')} (klog's header format, or klog's JSON keys)`,
    validate: (v: string) => {
      if (!(LOG_FORMATS as readonly string[]).includes(v)) {
        throw new Error(`"${v}" is not a log format (${LOG_FORMATS.join(', ')})`);
      }
    },
  } satisfies FlagSpec<'string'>,
  ...UPSTREAM_FLAGS,
} as const;

export type CCMFlags = FlagValues<typeof CCM_FLAGS>;

export interface CCMOptions {
  flags: CCMFlags;
  controllers: Set<ControllerName>;
  clusterCIDRs: CIDR[];
  /** The --cloud-config content ('' when none). */
  cloudConfig: string;
  /** From --plugin-config, or built from --plugin and its flags; undefined when neither is given. */
  pluginConfig: PluginConfig | undefined;
  featureGates: FeatureGates;
  /** Said once at start: deprecated flags given, and upstream flags given values that change nothing here. */
  warnings: string[];
}

export type ParsedCommand =
  { kind: 'help'; text: string } | { kind: 'version'; raw: boolean } | { kind: 'run'; options: CCMOptions };

const CCM_SUMMARY =
  'wasm-ccm runs the Kubernetes cloud controllers (cloud-node, cloud-node-lifecycle, service, route) with the cloud provider loaded as a sandboxed WebAssembly plugin.';

export function parseCommandLine(argv: readonly string[]): ParsedCommand {
  const parsed = parseFlags(CCM_FLAGS, argv);
  if (parsed.help) return { kind: 'help', text: usage('wasm-ccm', CCM_SUMMARY, CCM_FLAGS) };
  if (parsed.version) return { kind: 'version', raw: parsed.version === 'raw' };
  const flags = parsed.values;
  const featureGates = parseFeatureGates(flags['feature-gates']);
  for (const split of ['log-json-split-stream', 'log-text-split-stream'] as const) {
    if (flags[split] && !featureGates.LoggingAlphaOptions) {
      throw new FlagError(split, 'is an alpha option: enable it with --feature-gates=LoggingAlphaOptions=true');
    }
  }

  if (flags['cloud-provider'] === '')
    throw new FlagError('cloud-provider', 'required (the name of the provider to run)');
  let controllers: Set<ControllerName>;
  try {
    controllers = resolveControllers(flags.controllers);
  } catch (err) {
    throw new FlagError('controllers', errorMessage(err));
  }
  let clusterCIDRs: CIDR[];
  try {
    clusterCIDRs = parseClusterCIDRs(flags['cluster-cidr']);
  } catch (err) {
    throw new FlagError('cluster-cidr', errorMessage(err));
  }
  if (flags['kube-api-burst'] < flags['kube-api-qps'] && flags['kube-api-qps'] >= 1) {
    // client-go allows it, but a burst below the rate means the bucket can never fill: almost always a typo.
    throw new FlagError('kube-api-burst', `must be >= --kube-api-qps (${flags['kube-api-qps']})`);
  }
  if (flags['leader-elect']) {
    if (flags['leader-elect-resource-lock'] !== 'leases') {
      throw new FlagError(
        'leader-elect-resource-lock',
        `only "leases" is supported, got "${flags['leader-elect-resource-lock']}"`,
      );
    }
    if (flags['leader-elect-lease-duration'] <= flags['leader-elect-renew-deadline']) {
      throw new FlagError('leader-elect-lease-duration', 'must be greater than --leader-elect-renew-deadline');
    }
    if (flags['leader-elect-renew-deadline'] <= flags['leader-elect-retry-period'] * 1.2) {
      throw new FlagError('leader-elect-renew-deadline', 'must be greater than 1.2 x --leader-elect-retry-period');
    }
  }
  if (!flags['delegated-auth'] && !['127.0.0.1', '::1'].includes(flags['bind-address'])) {
    throw new FlagError(
      'delegated-auth',
      'may be false only with --bind-address=127.0.0.1 or ::1 (metrics must not be open to remote clients)',
    );
  }
  if ((flags['tls-cert-file'] === '') !== (flags['tls-private-key-file'] === '')) {
    throw new FlagError('tls-private-key-file', 'give both --tls-cert-file and --tls-private-key-file, or neither');
  }
  for (const name of [
    'tls-cert-file',
    'tls-private-key-file',
    'plugin-credentials',
    'kubeconfig',
    'authentication-kubeconfig',
    'authorization-kubeconfig',
  ] as const) {
    const path = flags[name];
    if (path !== '') requireRegularFile(name, path, CONFIG_FILE_CAP);
  }
  if (flags['plugin-credentials'] !== '') checkCredentialsFlag(flags['plugin-credentials']);
  if (flags.plugin !== '') requireRegularFile('plugin', flags.plugin, moduleFileCap(DEFAULT_MAX_MODULE_MB * 1048576));
  const cloudConfig = flags['cloud-config'] === '' ? '' : readFlagFile('cloud-config', flags['cloud-config']);
  return {
    kind: 'run',
    options: {
      flags,
      controllers,
      clusterCIDRs,
      cloudConfig,
      pluginConfig: pluginConfig(flags, cloudConfig),
      featureGates,
      warnings: [...parsed.deprecations, ...compatWarnings(flags, parsed.set)],
    },
  };
}

// The single-plugin flags configure the one provider of --plugin; with --plugin-config each provider has its own.
const SINGLE_PLUGIN_FLAGS = [
  'plugin',
  'plugin-sha256',
  'plugin-allowed-hosts',
  'plugin-credentials',
  'cloud-config',
] as const;

function pluginConfig(flags: CCMFlags, cloudConfig: string): PluginConfig | undefined {
  const limits = {
    callTimeoutMs: flags['plugin-call-timeout'],
    memoryLimitMB: flags['plugin-memory-limit-mb'],
    poolSize: flags['plugin-pool-size'],
  };
  if (flags['plugin-config'] !== '') {
    for (const name of SINGLE_PLUGIN_FLAGS) {
      const value = flags[name];
      if (Array.isArray(value) ? value.length > 0 : value !== '') {
        throw new FlagError(name, 'not with --plugin-config (set it on the provider in the configuration file)');
      }
    }
    try {
      return loadPluginConfigFile(flags['plugin-config'], limits);
    } catch (err) {
      if (err instanceof PluginConfigError) throw new FlagError('plugin-config', err.message);
      throw err;
    }
  }
  if (flags.plugin === '') return undefined;
  return singlePluginConfig({
    name: flags['cloud-provider'],
    plugin: flags.plugin,
    sha256: flags['plugin-sha256'],
    allowedHosts: flags['plugin-allowed-hosts'],
    credentialsFile: flags['plugin-credentials'],
    cloudConfig,
    limits,
  });
}

function checkCredentialsFlag(path: string): void {
  try {
    checkCredentialsText(readFlagFile('plugin-credentials', path), path);
  } catch (err) {
    if (err instanceof CredentialFileError) throw new FlagError('plugin-credentials', err.message);
    throw err;
  }
}

// A file a flag names must open as a regular file within its cap (util/read-regular-file.ts): /dev/zero or a FIFO
// fails here, naming the flag, instead of being read to gigabytes or hanging the start.
function requireRegularFile(flag: string, path: string, cap: FileCap): void {
  try {
    checkRegularFileSync(path, cap);
  } catch (err) {
    throw new FlagError(flag, `cannot read "${path}" (${unreadableReason(err)})`);
  }
}

function readFlagFile(flag: string, path: string): string {
  try {
    return readRegularFileSync(path, CONFIG_FILE_CAP).toString('utf8');
  } catch (err) {
    throw new FlagError(flag, `cannot read "${path}" (${unreadableReason(err)})`);
  }
}
