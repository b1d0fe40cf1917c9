// Shared test plumbing: a devcloud on loopback with distinct cloud and admin tokens, and a tiny JSON client.
import { startDevcloud, type Devcloud, type DevcloudOptions } from '../../../devcloud/src/index.ts';

export const TOKEN = 'cloud-token';
export const ADMIN_TOKEN = 'admin-token';

export interface ApiError {
  error: { code: string; message: string; field?: string };
}

export interface Res<T> {
  status: number;
  headers: Headers;
  body: T;
}

export interface Client {
  get<T = ApiError>(path: string): Promise<Res<T>>;
  post<T = ApiError>(path: string, body?: unknown): Promise<Res<T>>;
  put<T = ApiError>(path: string, body?: unknown): Promise<Res<T>>;
  patch<T = ApiError>(path: string, body?: unknown): Promise<Res<T>>;
  del<T = ApiError>(path: string): Promise<Res<T>>;
}

/** A client for `${url}/v1` sending `token` (or no Authorization header when token is null). */
export function client(url: string, token: string | null): Client {
  const call = async <T>(method: string, path: string, body?: unknown): Promise<Res<T>> => {
    const headers: Record<string, string> = {};
    if (token !== null) headers.authorization = `Bearer ${token}`;
    if (body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(`${url}/v1${path}`, {
      method,
      headers,
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    const text = await res.text();
    return { status: res.status, headers: res.headers, body: (text === '' ? null : JSON.parse(text)) as T };
  };
  return {
    get: (path) => call('GET', path),
    post: (path, body) => call('POST', path, body),
    put: (path, body) => call('PUT', path, body),
    patch: (path, body) => call('PATCH', path, body),
    del: (path) => call('DELETE', path),
  };
}

export interface Harness {
  dc: Devcloud;
  /** Sends the cloud token. */
  api: Client;
  /** Sends the admin token. */
  admin: Client;
}

export async function start(options: DevcloudOptions = {}): Promise<Harness> {
  const dc = await startDevcloud({ token: TOKEN, adminToken: ADMIN_TOKEN, ...options });
  return { dc, api: client(dc.url, dc.token), admin: client(dc.url, dc.adminToken) };
}

export const tcp = (port: number, nodePort: number) => ({ protocol: 'TCP', port, nodePort });
