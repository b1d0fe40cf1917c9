// A small client of the lab OpenStack's real APIs: a Keystone token scoped to a project, the service catalog it
// comes with, and JSON requests to the services the catalog names. Enough for fixtures and tests; not an SDK.
import { DOMAIN, REGION } from './layout.ts';

export interface Credentials {
  authUrl: string;
  username: string;
  password: string;
  projectName: string;
  /** Default: "Default", for the user's and the project's domain. */
  domainName?: string;
}

/** A service of the catalog, by its type. */
export type ServiceType = 'identity' | 'compute' | 'network' | 'image' | 'placement' | 'load-balancer';

export interface Token {
  id: string;
  projectId: string;
  userId: string;
  expiresAt: Date;
  /** Public endpoint of each service in the lab's region. */
  endpoints: Map<string, string>;
}

interface CatalogEntry {
  type: string;
  endpoints: Array<{ interface: string; region_id?: string; region?: string; url: string }>;
}

interface TokenBody {
  token: { expires_at: string; project?: { id: string }; user: { id: string }; catalog?: CatalogEntry[] };
}

export class ApiError extends Error {
  readonly status: number;
  readonly body: string;
  constructor(what: string, status: number, body: string) {
    super(`${what} answered ${status}: ${body.slice(0, 2000)}`);
    this.status = status;
    this.body = body;
  }
}

/** POST /v3/auth/tokens with a password, scoped to the credentials' project. */
export async function issueToken(credentials: Credentials): Promise<Token> {
  const domain = { name: credentials.domainName ?? DOMAIN };
  const res = await fetch(`${credentials.authUrl}/auth/tokens`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      auth: {
        identity: {
          methods: ['password'],
          password: { user: { name: credentials.username, domain, password: credentials.password } },
        },
        scope: { project: { name: credentials.projectName, domain } },
      },
    }),
  });
  const text = await res.text();
  const id = res.headers.get('x-subject-token');
  if (res.status !== 201 || id === null)
    throw new ApiError(`keystone token for ${credentials.username}`, res.status, text);
  const body = JSON.parse(text) as TokenBody;
  const endpoints = new Map<string, string>();
  for (const entry of body.token.catalog ?? []) {
    const endpoint = entry.endpoints.find((e) => e.interface === 'public' && (e.region_id ?? e.region) === REGION);
    if (endpoint) endpoints.set(entry.type, endpoint.url.replace(/\/$/, ''));
  }
  return {
    id,
    projectId: body.token.project?.id ?? '',
    userId: body.token.user.id,
    expiresAt: new Date(body.token.expires_at),
    endpoints,
  };
}

export interface Answer<T> {
  status: number;
  body: T;
}

export interface RequestOptions {
  body?: unknown;
  headers?: Record<string, string>;
  /** Statuses that are not errors (default: any 2xx). */
  ok?: readonly number[];
}

/** JSON requests to the lab's services with a token that is renewed before it expires. */
export class OpenStackClient {
  readonly credentials: Credentials;
  #token: Token | undefined;

  constructor(credentials: Credentials) {
    this.credentials = credentials;
  }

  async token(): Promise<Token> {
    if (this.#token === undefined || this.#token.expiresAt.getTime() - Date.now() < 60_000) {
      this.#token = await issueToken(this.credentials);
    }
    return this.#token;
  }

  async endpoint(service: ServiceType): Promise<string> {
    // Keystone is where the credentials say; its catalog entry may lag behind a restart on another port.
    if (service === 'identity') return this.credentials.authUrl;
    let url = (await this.token()).endpoints.get(service);
    if (url === undefined) {
      // A token carries the catalog of the moment it was issued: the service may have been added since.
      this.#token = undefined;
      url = (await this.token()).endpoints.get(service);
    }
    if (url === undefined) throw new Error(`the catalog has no public ${service} endpoint in ${REGION}`);
    return url;
  }

  /** A request to `path` under `service`'s endpoint; the body is parsed as JSON when there is one. */
  async request<T = unknown>(
    service: ServiceType,
    method: string,
    path: string,
    options: RequestOptions = {},
  ): Promise<Answer<T>> {
    const url = `${await this.endpoint(service)}${path}`;
    const headers: Record<string, string> = {
      'x-auth-token': (await this.token()).id,
      accept: 'application/json',
      ...options.headers,
    };
    let body: string | Uint8Array | undefined;
    if (options.body instanceof Uint8Array) {
      body = options.body;
    } else if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers['content-type'] ??= 'application/json';
    }
    const res = await fetch(url, { method, headers, body });
    const text = await res.text();
    const accepted = options.ok ? options.ok.includes(res.status) : res.status >= 200 && res.status < 300;
    if (!accepted) throw new ApiError(`${method} ${url}`, res.status, text);
    return { status: res.status, body: (text === '' ? undefined : JSON.parse(text)) as T };
  }

  async get<T>(service: ServiceType, path: string): Promise<T> {
    return (await this.request<T>(service, 'GET', path)).body;
  }

  async post<T>(service: ServiceType, path: string, body: unknown): Promise<T> {
    return (await this.request<T>(service, 'POST', path, { body })).body;
  }

  async put<T>(service: ServiceType, path: string, body: unknown): Promise<T> {
    return (await this.request<T>(service, 'PUT', path, { body })).body;
  }

  async delete(service: ServiceType, path: string): Promise<void> {
    await this.request(service, 'DELETE', path, { ok: [202, 204, 404] });
  }
}

/** Polls `read` until `done` holds for its value; throws with the last value when `timeoutMs` passes. */
export async function pollUntil<T>(
  what: string,
  read: () => Promise<T>,
  done: (value: T) => boolean,
  timeoutMs: number,
  intervalMs = 500,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: T | undefined;
  while (Date.now() < deadline) {
    last = await read();
    if (done(last)) return last;
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}; last: ${JSON.stringify(last)}`);
}
