// What KubeClient needs to reach the apiserver: its URL, the TLS settings of the connections, and the headers that
// authenticate each request. The kubeconfig loader (kubeconfig.ts) builds them itself for what a CCM uses (a
// service account, tokens, token files, client certificates, basic auth): the runtime then never loads
// @kubernetes/client-node, whose import alone costs tens of megabytes of resident memory (thousands of generated
// modules) and a noticeable part of start-up CPU. Exec plugins, auth providers and proxies are handed to client-node
// (client-node-credentials.ts), loaded only then.
import { CONFIG_FILE_CAP, readRegularFile } from '../../util/read-regular-file.ts';
import type { Dispatcher } from 'undici';

/** TLS options for the connections to the apiserver (undici's `connect`). */
export interface TlsSettings {
  ca?: string | Buffer;
  cert?: string | Buffer;
  key?: string | Buffer;
  rejectUnauthorized?: boolean;
  servername?: string;
}

/** How connections reach the server: our HTTP/1.1 pools with these TLS settings, or a dispatcher of its own. */
export type Transport = { tls: TlsSettings } | { dispatcher: Dispatcher };

export interface ApiserverCredentials {
  /** The apiserver URL (may carry a path prefix). */
  readonly server: string;
  /** Headers that authenticate the next requests; asked again every few seconds and after a 401. */
  authHeaders(): Promise<Record<string, string>>;
  /** Asked when a connection pool is built (at start and every few minutes, so rotated certificates are read). */
  transport(): Promise<Transport>;
  /** The apiserver answered 401 with the current headers: a credential that caches one should drop it. */
  rejected?(): void;
}

/** Bytes given inline (kubeconfig `*-data`, base64-decoded) or a file read each time it is needed. */
export type Material = { data: Buffer } | { file: string };

export interface StaticCredentialOptions {
  server: string;
  ca?: Material | undefined;
  cert?: Material | undefined;
  key?: Material | undefined;
  insecureSkipTLSVerify?: boolean | undefined;
  tlsServerName?: string | undefined;
  token?: string | undefined;
  /** Re-read on every authHeaders() and, as client-go does, preferred over `token`. */
  tokenFile?: string | undefined;
  username?: string | undefined;
  password?: string | undefined;
}

async function read(material: Material | undefined): Promise<Buffer | undefined> {
  if (material === undefined) return undefined;
  return 'data' in material ? material.data : readRegularFile(material.file, CONFIG_FILE_CAP);
}

export function staticCredentials(options: StaticCredentialOptions): ApiserverCredentials {
  return {
    server: options.server,
    async authHeaders(): Promise<Record<string, string>> {
      if (options.tokenFile !== undefined) {
        const token = (await readRegularFile(options.tokenFile, CONFIG_FILE_CAP)).toString('utf8').trim();
        if (token !== '') return { authorization: `Bearer ${token}` };
      }
      if (options.token) return { authorization: `Bearer ${options.token}` };
      if (options.username !== undefined) {
        const basic = Buffer.from(`${options.username}:${options.password ?? ''}`).toString('base64');
        return { authorization: `Basic ${basic}` };
      }
      return {};
    },
    async transport() {
      const [ca, cert, key] = await Promise.all([read(options.ca), read(options.cert), read(options.key)]);
      const tls: TlsSettings = { rejectUnauthorized: options.insecureSkipTLSVerify !== true };
      if (ca) tls.ca = ca;
      if (cert) tls.cert = cert;
      if (key) tls.key = key;
      if (options.tlsServerName) tls.servername = options.tlsServerName;
      return { tls };
    },
  };
}
