// The hosts a plugin may reach through ccm_http. Entries are exact `host` or `host:port` (no wildcards, no paths):
// an entry without a port allows the scheme's default port only (443 for https, 80 for http).

export class AllowListError extends Error {
  override name = 'AllowListError';
}

export interface HostPort {
  /** Lower-case host name, or IP (IPv6 in brackets, as URL.hostname has it). */
  hostname: string;
  /** undefined: the default port of the request's scheme. */
  port: number | undefined;
}

const DEFAULT_PORTS: Record<string, number> = { 'http:': 80, 'https:': 443 };
// 127.0.0.0/8 and ::1 as URL.hostname spells them, and `localhost`, which RFC 6761 reserves for loopback (not its
// subdomains, which resolvers treat differently).
const LOOPBACK = /^(?:127(?:\.(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}|\[::1\]|localhost)$/;

/** Whether a host name (as URL.hostname spells it) is a loopback address: traffic to it never leaves the machine. */
export function isLoopback(hostname: string): boolean {
  return LOOPBACK.test(hostname);
}

export class HostAllowList {
  readonly entries: readonly HostPort[];

  constructor(entries: readonly string[]) {
    this.entries = entries.map(parseEntry);
  }

  /** Whether a request to `url` may be made. Only http and https URLs are ever allowed. */
  allows(url: URL): boolean {
    return this.entries.some((e) => entryMatches(e, url));
  }

  toString(): string {
    return (
      this.entries.map((e) => (e.port === undefined ? e.hostname : `${e.hostname}:${e.port}`)).join(', ') || '(empty)'
    );
  }
}

/** Parses `host` or `host:port`; IPv6 addresses must be bracketed (`[::1]:8443`). */
export function parseEntry(entry: string): HostPort {
  const trimmed = entry.trim();
  if (trimmed === '' || /[/?#@*\s]/.test(trimmed)) {
    throw new AllowListError(`allowed host '${entry}' must be host or host:port (no scheme, path, user or wildcard)`);
  }
  let url: URL;
  try {
    url = new URL(`http://${trimmed}`);
  } catch {
    throw new AllowListError(`allowed host '${entry}' is not a valid host[:port]`);
  }
  // URL drops an explicit :80 for http; read the port from the entry itself so 'host:80' stays explicit.
  const portMatch = /:(\d+)$/.exec(trimmed);
  const port = portMatch ? Number(portMatch[1]) : undefined;
  if (port !== undefined && (port < 1 || port > 65535))
    throw new AllowListError(`allowed host '${entry}' has an invalid port`);
  return { hostname: url.hostname.toLowerCase(), port };
}

/** Whether two `host[:port]` spellings name the same endpoint for `url`'s scheme (used to match credentials). */
export function entryMatches(entry: HostPort, url: URL): boolean {
  const defaultPort = DEFAULT_PORTS[url.protocol];
  if (defaultPort === undefined) return false;
  const port = url.port === '' ? defaultPort : Number(url.port);
  return entry.hostname === url.hostname.toLowerCase() && (entry.port ?? defaultPort) === port;
}
