// The flags of the upstream cloud-controller-manager (k8s.io/cloud-provider v0.36) that are not about what wasm-ccm
// adds, so a command line written for another CCM (its Helm chart, a kubeadm-style static pod) starts wasm-ccm
// unchanged. Each flag has upstream's name, type and default. Where wasm-ccm gives a flag no effect, `inert` says
// why, and a value other than the default is logged as a warning at start (compatWarnings); a value that asks for
// something wasm-ccm cannot do is refused with exit 2 instead, never accepted silently.
import { isIP } from 'node:net';
import { featureGatesHelp, parseFeatureGates } from './feature-gates.ts';
import type { FlagSpec, FlagSpecs, FlagType, FlagTypes } from './flagset.ts';
import { checkCipherSuites, checkCurvePreferences, checkTlsMinVersion } from './tls-flags.ts';

export type UpstreamFlag<T extends FlagType = FlagType> = FlagSpec<T> & {
  /** Why the flag changes nothing in wasm-ccm; undefined when it is implemented. */
  inert?: string;
};

const NO_WEBHOOKS = 'providers serve no webhooks through the plugin ABI, so there is no webhook server';
const FAIL_CLOSED = 'the server authenticates bearer tokens only (TokenReview); client certificates get 401';

function flag<T extends FlagType>(type: T, def: FlagTypes[T]) {
  return (help: string, inert?: string): UpstreamFlag<T> => ({ type, default: def, help, inert });
}
const str = (help: string, def = '', inert?: string) => flag('string', def)(help, inert);
const bool = (help: string, def: boolean, inert?: string) => flag('bool', def)(help, inert);
const list = (help: string, inert?: string) => flag('stringList', [])(help, inert);
const int = (help: string, def: number, inert?: string) => flag('int', def)(help, inert);
const duration = (help: string, ms: number, inert?: string) => flag('duration', ms)(help, inert);
// The result is typed as a FlagSpec, whose validate is a method, so a table of several flag types can hold it.
function checked<T extends FlagType>(spec: UpstreamFlag<T>, check: (value: FlagTypes[T]) => void): UpstreamFlag<T> {
  return { ...spec, validate: check };
}
const refuseIfSet = (what: string) => (v: string | boolean | string[]) => {
  if (Array.isArray(v) ? v.length > 0 : v !== '' && v !== false)
    throw new Error(`${what} is not supported by wasm-ccm`);
};
const port = (v: number): void => {
  if (!Number.isInteger(v) || v < 0 || v > 65535) throw new Error(`must be between 0 and 65535, inclusive, got ${v}`);
};
const ip = (v: string): void => {
  if (v !== '' && isIP(v) === 0) throw new Error(`"${v}" is not an IP address`);
};
const nonNegative = (v: number): void => {
  if (!Number.isInteger(v) || v < 0) throw new Error(`must be an integer >= 0, got ${v}`);
};

export const UPSTREAM_FLAGS = {
  'allow-untagged-cloud': {
    ...bool(
      'Allow the cluster to run without the cluster-id on cloud instances (upstream v0.36 no longer reads it)',
      false,
    ),
    deprecated:
      'This flag is deprecated and will be removed in a future release. A cluster-id will be required on cloud instances.',
  },
  'node-sync-period': {
    ...duration('no effect upstream either; see --node-monitor-period and --route-reconciliation-period', 0),
    deprecated: 'This flag is currently no-op and will be deleted.',
  },
  'use-service-account-credentials': bool(
    'each controller talks to the apiserver with a token of its own ServiceAccount in kube-system (TokenRequest)',
    false,
  ),
  'feature-gates': checked(list(featureGatesHelp()), (v: string[]) => void parseFeatureGates(v)),
  'concurrent-node-status-updates': checked(
    int('workers concurrently updating node statuses (0: --concurrent-node-syncs)', 0),
    nonNegative,
  ),
  'controller-start-interval': duration('interval between starting the controllers', 0),
  'min-resync-period': duration('the resync period of informers is random between this and twice it', 43_200_000),
  'kube-api-content-type': checked(
    str(
      'content type of requests sent to the apiserver',
      'application/vnd.kubernetes.protobuf',
      'wasm-ccm always speaks JSON to the apiserver',
    ),
    (v) => {
      if (v !== 'application/vnd.kubernetes.protobuf' && v !== 'application/json') {
        throw new Error(`"${v}" is not application/vnd.kubernetes.protobuf or application/json`);
      }
    },
  ),
  'cidr-allocator-type': str('type of CIDR allocator to use', 'RangeAllocator', 'wasm-ccm allocates no pod CIDRs'),
  'external-cloud-volume-plugin': str('the plugin for volumes of the legacy in-tree provider', '', 'no volumes'),
  'enable-leader-migration': checked(bool('enable leader migration', false), refuseIfSet('leader migration')),
  'leader-migration-config': checked(str('leader migration configuration file'), refuseIfSet('leader migration')),
  profiling: bool(
    'serve /debug/flags/v, where -v is read and set while running (wasm-ccm serves no /debug/pprof)',
    true,
  ),
  'contention-profiling': bool('enable block profiling', false, 'wasm-ccm serves no /debug/pprof'),
  // secure serving
  'cert-dir': str('directory of the self-signed certificate', '', 'the self-signed certificate stays in memory'),
  'disable-http2-serving': bool('disable HTTP/2 serving', false, 'the server speaks HTTP/1.1 only'),
  'http2-max-streams-per-connection': int('HTTP/2 streams per connection', 0, 'the server speaks HTTP/1.1 only'),
  'permit-address-sharing': bool('bind with SO_REUSEADDR', false, 'Node.js binds with SO_REUSEADDR already'),
  'permit-port-sharing': bool('bind with SO_REUSEPORT (several instances on one port)', false),
  'tls-cipher-suites': checked(list('cipher suites of the server (IANA names)'), checkCipherSuites),
  'tls-min-version': checked(
    str('minimum TLS version: VersionTLS10, VersionTLS11, VersionTLS12, VersionTLS13'),
    checkTlsMinVersion,
  ),
  'tls-curve-preferences': checked(
    list('key exchange mechanisms (Go crypto/tls CurveID numbers)'),
    checkCurvePreferences,
  ),
  'tls-sni-cert-key': checked(list('SNI certificate/key pairs'), refuseIfSet('SNI certificate selection')),
  // delegated authentication and authorization
  'authentication-kubeconfig': str("kubeconfig for TokenReview (empty: the CCM's own client)"),
  'authorization-kubeconfig': str("kubeconfig for SubjectAccessReview (empty: the CCM's own client)"),
  'authentication-skip-lookup': bool(
    'skip reading the extension-apiserver-authentication ConfigMap',
    false,
    FAIL_CLOSED,
  ),
  'authentication-tolerate-lookup-failure': bool('start even if that ConfigMap cannot be read', false, FAIL_CLOSED),
  'authentication-token-webhook-cache-ttl': duration('how long TokenReview answers are cached', 10_000),
  'authorization-webhook-cache-authorized-ttl': duration(
    'how long allowed SubjectAccessReview answers are cached',
    10_000,
  ),
  'authorization-webhook-cache-unauthorized-ttl': duration(
    'how long denied SubjectAccessReview answers are cached',
    10_000,
  ),
  'client-ca-file': str('CA for client certificates', '', FAIL_CLOSED),
  'requestheader-client-ca-file': str('CA for front-proxy client certificates', '', FAIL_CLOSED),
  'requestheader-allowed-names': list('front-proxy client certificate common names', FAIL_CLOSED),
  'requestheader-username-headers': list('front-proxy user name headers', FAIL_CLOSED),
  'requestheader-group-headers': list('front-proxy group headers', FAIL_CLOSED),
  'requestheader-extra-headers-prefix': list('front-proxy extra header prefixes', FAIL_CLOSED),
  'requestheader-uid-headers': list('front-proxy UID headers', FAIL_CLOSED),
  // logging
  'log-flush-frequency': duration(
    'maximum time between log flushes',
    5_000,
    'records are written every event-loop turn',
  ),
  'log-json-info-buffer-size': str(
    'buffer for info records with --log-json-split-stream',
    '0',
    'records are not buffered',
  ),
  'log-text-info-buffer-size': str(
    'buffer for info records with --log-text-split-stream',
    '0',
    'records are not buffered',
  ),
  'log-json-split-stream': bool('JSON records: errors to stderr, info to stdout (needs LoggingAlphaOptions)', false),
  'log-text-split-stream': bool('text records: errors to stderr, info to stdout (needs LoggingAlphaOptions)', false),
  vmodule: str('per-file verbosity (pattern=N,...)', '', 'verbosity is one level for the whole process (--v)'),
  // webhooks
  webhooks: checked(list('webhooks to enable (* for all on by default); wasm-ccm knows none'), (v: string[]) => {
    const unknown = v.map((w) => w.replace(/^-/, '')).find((w) => w !== '*');
    if (unknown !== undefined) throw new Error(`"${unknown}" is not in the list of known webhooks`);
  }),
  'webhook-secure-port': checked(int('port of the webhook server (0 disables)', 10260, NO_WEBHOOKS), port),
  'webhook-bind-address': checked(str('address of the webhook server', '0.0.0.0', NO_WEBHOOKS), ip),
  'webhook-cert-dir': str('directory of the webhook server certificate', '', NO_WEBHOOKS),
  'webhook-disable-http2-serving': bool('disable HTTP/2 on the webhook server', false, NO_WEBHOOKS),
  'webhook-tls-cert-file': str('webhook server certificate', '', NO_WEBHOOKS),
  'webhook-tls-private-key-file': str('webhook server key', '', NO_WEBHOOKS),
  'webhook-tls-cipher-suites': checked(list('webhook server cipher suites', NO_WEBHOOKS), checkCipherSuites),
  'webhook-tls-curve-preferences': checked(list('webhook server curves', NO_WEBHOOKS), checkCurvePreferences),
  'webhook-tls-min-version': checked(str('webhook server minimum TLS version', '', NO_WEBHOOKS), checkTlsMinVersion),
  'webhook-tls-sni-cert-key': list('webhook server SNI certificate/key pairs', NO_WEBHOOKS),
} satisfies FlagSpecs;

/** Warnings for inert upstream flags given a value other than their default: accepted, and said to do nothing. */
export function compatWarnings(values: Record<string, unknown>, set: ReadonlySet<string>): string[] {
  const warnings: string[] = [];
  for (const [name, flag] of Object.entries(UPSTREAM_FLAGS) as [string, UpstreamFlag][]) {
    if (!flag.inert || !set.has(name)) continue;
    if (JSON.stringify(values[name]) === JSON.stringify(flag.default)) continue;
    warnings.push(`--${name} is accepted for compatibility and has no effect: ${flag.inert}`);
  }
  return warnings;
}
