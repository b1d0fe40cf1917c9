// Which credential a request's URL gets, and which credential hosts the plugin's allow-list can reach: pure functions
// of the credentials and the allow-list, for credential-store.ts.
import type { HostAllowList, HostPort } from './allow-list.ts';
import { signingService } from './aws-sigv4-entry.ts';
import type { Credential } from './credential-file.ts';
import type { PostReads } from './request-effect.ts';

export interface UnreachableCredentialHost {
  credential: string;
  /** As the credentials file names it. */
  host: string;
  /** An allowed host of the same name (with another port), which the credential probably meant. */
  allowedHost?: string;
}

// The AWS services (signing names) that speak the Query API, whose reads are POSTs of Describe*, Get* or List*
// actions (request-effect.ts). The rest (JSON and REST protocols) are judged by method alone.
const QUERY_API_SERVICES = new Set([
  'autoscaling',
  'cloudformation',
  'ec2',
  'elasticache',
  'elasticloadbalancing',
  'email',
  'iam',
  'monitoring',
  'rds',
  'redshift',
  'sns',
  'sqs',
  'sts',
]);

const DEFAULT_PORTS = [80, 443];
const HTTPS_PORT = 443;

// Whether `url` goes to the endpoint a credential host names: the same name and port, a host without a port standing
// for https's (credentials go over TLS). Whether the request may then carry it is the scheme's question (#credentialFor).
function namesEndpoint(host: HostPort, url: URL): boolean {
  if (host.hostname !== url.hostname.toLowerCase()) return false;
  const port = url.port === '' ? (url.protocol === 'https:' ? HTTPS_PORT : 80) : Number(url.port);
  return (host.port ?? HTTPS_PORT) === port;
}

// Whether some http(s) URL the allowed entry admits gets the credential host's secret: the same name, and the same
// port for a scheme (an entry without a port stands for the scheme's default port; a credential host without one,
// for https's only, attachable()).
function sameEndpoint(allowed: HostPort, host: HostPort): boolean {
  if (allowed.hostname !== host.hostname) return false;
  if (host.port === undefined) return allowed.port === undefined || allowed.port === HTTPS_PORT;
  if (allowed.port === undefined) return DEFAULT_PORTS.includes(host.port);
  return allowed.port === host.port;
}

function formatHostPort(h: HostPort): string {
  return h.port === undefined ? h.hostname : `${h.hostname}:${h.port}`;
}

/** The credential whose hosts name `url`'s endpoint, if any (whether the request may carry it is the scheme's question). */
export function credentialNaming(credentials: readonly Credential[], url: URL): Credential | undefined {
  return credentials.find((c) => c.hosts.some((h) => namesEndpoint(h, url)));
}

/**
 * What the credential of `url`'s endpoint says about its POSTs: 'awsQuery' for an AWS key signing for a service of
 * the Query API, whose Describe/Get/List POSTs only read.
 */
export function postReads(credentials: readonly Credential[], url: URL): PostReads | undefined {
  const credential = credentialNaming(credentials, url);
  if (credential?.secret.kind !== 'awsSigV4') return undefined;
  return QUERY_API_SERVICES.has(signingService(credential.secret.entry, url.hostname)) ? 'awsQuery' : undefined;
}

/**
 * Credential hosts no request the plugin may make can match (`api.example` allows only the default port, so it
 * never matches an allowed `api.example:8990`): such a credential is silently never attached. Each comes with the
 * allowed host of the same name it probably meant, if any.
 */
export function unreachableHosts(
  credentials: readonly Credential[],
  allowList: HostAllowList,
): UnreachableCredentialHost[] {
  const out: UnreachableCredentialHost[] = [];
  for (const credential of credentials) {
    for (const host of credential.hosts) {
      if (allowList.entries.some((allowed) => sameEndpoint(allowed, host))) continue;
      const sameName = allowList.entries.find((allowed) => allowed.hostname === host.hostname);
      out.push({
        credential: credential.name,
        host: formatHostPort(host),
        ...(sameName !== undefined ? { allowedHost: formatHostPort(sameName) } : {}),
      });
    }
  }
  return out;
}

/**
 * Credential hosts that match an allowed host only through the default-port rule (`api.example` and
 * `api.example:443`): attached for one scheme's default port only, which an operator writing one side without a
 * port may not expect. Each comes with the allowed host it matched.
 */
export function defaultPortMatches(
  credentials: readonly Credential[],
  allowList: HostAllowList,
): Required<UnreachableCredentialHost>[] {
  const out: Required<UnreachableCredentialHost>[] = [];
  for (const credential of credentials) {
    for (const host of credential.hosts) {
      const exact = allowList.entries.some((a) => a.hostname === host.hostname && a.port === host.port);
      const via = exact ? undefined : allowList.entries.find((allowed) => sameEndpoint(allowed, host));
      if (via !== undefined) {
        out.push({ credential: credential.name, host: formatHostPort(host), allowedHost: formatHostPort(via) });
      }
    }
  }
  return out;
}
