// Where the CCM's credentials come from, in upstream's order: an explicit --kubeconfig (with --master overriding
// its server), else the pod's service account (in-cluster), else $KUBECONFIG. Never client-node's
// loadFromDefault, which quietly falls back to http://localhost:8080 and turns a missing config into
// "connection refused" much later: here a missing or broken config is an immediate, explicit error.
import { existsSync } from 'node:fs';
import { isIPv6 } from 'node:net';
import { delimiter, dirname, isAbsolute, join, resolve } from 'node:path';
import type { KubeConfig } from '@kubernetes/client-node';
import { load as parseYaml } from 'js-yaml';
import { errorMessage } from '../../util/error-message.ts';
import { CONFIG_FILE_CAP, readRegularFileSync } from '../../util/read-regular-file.ts';
import { kubeConfigCredentials } from './client-node-credentials.ts';
import { type ApiserverCredentials, type Material, staticCredentials } from './credentials.ts';
import { type Impersonation, withImpersonation } from './impersonation.ts';

export const SERVICE_ACCOUNT_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';

export interface LoadKubeConfigOptions {
  /** --kubeconfig */
  kubeconfig?: string;
  /** --master: the apiserver URL, overriding the kubeconfig's server. */
  master?: string;
  env?: Record<string, string | undefined>;
  /** Where the service account files are looked for (tests): <root>/var/run/secrets/... */
  inClusterRoot?: string;
}

export type KubeConfigSource = 'kubeconfig-flag' | 'in-cluster' | 'KUBECONFIG' | 'master-only';

export interface LoadedKubeConfig {
  credentials: ApiserverCredentials;
  source: KubeConfigSource;
  server: string;
  /** The kubeconfig's context names (merged across KUBECONFIG files); empty for in-cluster and --master alone. */
  contexts: string[];
}

export class KubeConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'KubeConfigError';
  }
}

export function loadKubeConfig(options: LoadKubeConfigOptions = {}): LoadedKubeConfig {
  const env = options.env ?? process.env;
  if (options.kubeconfig) return fromFiles([options.kubeconfig], '--kubeconfig', 'kubeconfig-flag', options.master);
  if (options.master) {
    // --master alone: a server without credentials (an insecure local apiserver), as client-go allows.
    const server = checkServer(options.master, 'master-only', 'master');
    const plainHttp = server.startsWith('http://');
    return {
      credentials: staticCredentials({ server, insecureSkipTLSVerify: plainHttp }),
      source: 'master-only',
      server,
      contexts: [],
    };
  }
  const root = options.inClusterRoot ?? '';
  if (inClusterAvailable(env, root)) {
    const host = env.KUBERNETES_SERVICE_HOST ?? '';
    const server = `https://${isIPv6(host) ? `[${host}]` : host}:${env.KUBERNETES_SERVICE_PORT ?? ''}`;
    // The token file is read again every few seconds, so projected token rotation keeps working.
    const credentials = staticCredentials({
      server,
      ca: { file: join(root, SERVICE_ACCOUNT_DIR, 'ca.crt') },
      tokenFile: join(root, SERVICE_ACCOUNT_DIR, 'token'),
    });
    return { credentials, source: 'in-cluster', server, contexts: [] };
  }
  if (env.KUBECONFIG) {
    const files = env.KUBECONFIG.split(delimiter).filter((f) => f !== '');
    const present = files.filter((f) => existsSync(f));
    if (present.length === 0) throw new KubeConfigError(`KUBECONFIG names no existing file: ${env.KUBECONFIG}`);
    return fromFiles(present, 'KUBECONFIG', 'KUBECONFIG', options.master);
  }
  throw new KubeConfigError(
    'no Kubernetes API configuration: pass --kubeconfig (or --master), run in a pod with a service account ' +
      '(KUBERNETES_SERVICE_HOST/PORT and a token), or set KUBECONFIG',
  );
}

function inClusterAvailable(env: Record<string, string | undefined>, root: string): boolean {
  return Boolean(
    env.KUBERNETES_SERVICE_HOST && env.KUBERNETES_SERVICE_PORT && existsSync(join(root, SERVICE_ACCOUNT_DIR, 'token')),
  );
}

type Entry = Record<string, unknown>;

interface Merged {
  clusters: Map<string, Entry>;
  users: Map<string, Entry>;
  contexts: Map<string, Entry>;
  currentContext: string | undefined;
}

// client-go's merge of several files: the first file to name a cluster, user or context wins, and the first
// current-context set wins. Relative file paths are relative to the file that holds them.
function fromFiles(
  files: string[],
  what: string,
  source: KubeConfigSource,
  master: string | undefined,
): LoadedKubeConfig {
  const merged: Merged = { clusters: new Map(), users: new Map(), contexts: new Map(), currentContext: undefined };
  for (const file of files) readInto(merged, file, what);
  const contextName = merged.currentContext;
  if (!contextName) throw new KubeConfigError(`${source}: no current context`);
  const context = merged.contexts.get(contextName);
  if (!context) throw new KubeConfigError(`${source}: current context "${contextName}" is not defined`);
  const clusterName = str(context.cluster);
  const cluster = clusterName === undefined ? undefined : merged.clusters.get(clusterName);
  if (!cluster) throw new KubeConfigError(`${source}: current context "${contextName}" names no known cluster`);
  const server = checkServer(master || (str(cluster.server) ?? ''), source, str(cluster.name) ?? '');
  const userName = str(context.user);
  const user = (userName === undefined ? undefined : merged.users.get(userName)) ?? {};
  const where = `${source}: user "${userName ?? ''}"`;
  checkUserFields(user, where);
  const impersonation = readImpersonation(user, where);
  const contexts = [...merged.contexts.keys()];
  const credentials = userCredentials({ files, contextName, master, server, cluster, user, source });
  return {
    credentials: impersonation === undefined ? credentials : withImpersonation(credentials, impersonation),
    source,
    server,
    contexts,
  };
}

interface UserContext {
  files: string[];
  contextName: string;
  master: string | undefined;
  server: string;
  cluster: Entry;
  user: Entry;
  source: KubeConfigSource;
}

function userCredentials({ files, contextName, master, server, cluster, user, source }: UserContext) {
  if (user.exec !== undefined || user['auth-provider'] !== undefined || cluster['proxy-url'] !== undefined) {
    return delegated(files, contextName, master, server);
  }
  return staticCredentials({
    server,
    ca: material(cluster, 'certificate-authority', source),
    cert: material(user, 'client-certificate', source),
    key: material(user, 'client-key', source),
    insecureSkipTLSVerify: cluster['insecure-skip-tls-verify'] === true,
    tlsServerName: str(cluster['tls-server-name']),
    token: str(user.token),
    tokenFile: existingFile(str(user.tokenFile), 'tokenFile', source),
    username: str(user.username),
    password: str(user.password),
  });
}

// client-go's AuthInfo fields (`name` is the entry's, kept beside them). A field wasm-ccm does not know could change
// who the CCM acts as; ignoring it would run the CCM as another identity than the operator configured.
const USER_FIELDS = new Set([
  'name',
  'token',
  'tokenFile',
  'client-certificate',
  'client-certificate-data',
  'client-key',
  'client-key-data',
  'username',
  'password',
  'as',
  'as-uid',
  'as-groups',
  'as-user-extra',
  'exec',
  'auth-provider',
  'extensions',
]);

function checkUserFields(user: Entry, where: string): void {
  for (const key of Object.keys(user)) {
    if (!USER_FIELDS.has(key)) {
      throw new KubeConfigError(`${where}: unknown field "${key}" (known: ${[...USER_FIELDS].slice(1).join(', ')})`);
    }
  }
}

/** The user's `as`, `as-uid`, `as-groups` and `as-user-extra`, checked; undefined when it impersonates no one. */
function readImpersonation(user: Entry, where: string): Impersonation | undefined {
  const fail = (field: string, problem: string): never => {
    throw new KubeConfigError(`${where}: ${field}: ${problem}`);
  };
  const text = (field: string, value: unknown): string => {
    if (typeof value !== 'string' || value === '') return fail(field, 'expected a non-empty string');
    if ([...value].some((c) => c < ' ' || c === '\u007f'))
      return fail(field, 'must not contain control characters (it travels in a header)');
    return value;
  };
  const list = (field: string, value: unknown): string[] => {
    if (!Array.isArray(value)) return fail(field, 'expected a list of strings');
    return value.map((v, i) => text(`${field}[${i}]`, v));
  };
  const as = user.as === undefined || user.as === '' ? undefined : text('as', user.as);
  const uid = user['as-uid'] === undefined ? undefined : text('as-uid', user['as-uid']);
  const groups = user['as-groups'] === undefined ? [] : list('as-groups', user['as-groups']);
  const extra: Record<string, string[]> = {};
  const extraField = user['as-user-extra'];
  if (extraField !== undefined) {
    if (!isEntry(extraField)) fail('as-user-extra', 'expected a mapping of key to a list of strings');
    for (const [key, values] of Object.entries(extraField as Entry)) {
      extra[text('as-user-extra key', key)] = list(`as-user-extra.${key}`, values);
    }
  }
  if (as === undefined) {
    // The apiserver refuses groups, a uid or extra fields without a user to impersonate.
    if (uid !== undefined) fail('as-uid', 'needs "as" (the user to impersonate)');
    if (groups.length > 0) fail('as-groups', 'needs "as" (the user to impersonate)');
    if (Object.keys(extra).length > 0) fail('as-user-extra', 'needs "as" (the user to impersonate)');
    return undefined;
  }
  return { user: as, uid, groups, extra };
}

function readInto(merged: Merged, file: string, what: string): void {
  if (!existsSync(file)) throw new KubeConfigError(`${what}: ${file} does not exist`);
  const fail = (problem: string): never => {
    throw new KubeConfigError(`${what}: cannot load ${file}: ${problem}`);
  };
  let doc: unknown;
  try {
    // A regular file within the config cap; aliases bounded (a kubeconfig has no use for them).
    doc = parseYaml(readRegularFileSync(file, CONFIG_FILE_CAP).toString('utf8'), { maxAliases: 100 });
  } catch (err) {
    fail(errorMessage(err));
  }
  if (doc === undefined || doc === null) return;
  if (!isEntry(doc)) return fail('not a kubeconfig (expected a mapping)');
  const base = dirname(resolve(file));
  const sections = [
    ['clusters', 'cluster', merged.clusters],
    ['users', 'user', merged.users],
    ['contexts', 'context', merged.contexts],
  ] as const;
  for (const [list, field, into] of sections) {
    const items = doc[list] ?? [];
    if (!Array.isArray(items)) return fail(`${list} must be a list`);
    items.forEach((item: unknown, i) => {
      if (!isEntry(item) || typeof item.name !== 'string' || item.name === '') fail(`${list}[${i}] has no name`);
      const { name } = item as { name: string };
      const body = (item as Entry)[field] ?? {};
      if (!isEntry(body)) return fail(`${list}[${i}] "${name}": ${field} must be a mapping`);
      if (list === 'clusters' && !str(body.server)) fail(`${list}[${i}] "${name}" has no server`);
      if (!into.has(name)) into.set(name, { ...absolutePaths(body, base), name });
    });
  }
  const current = str(doc['current-context']);
  if (merged.currentContext === undefined && current) merged.currentContext = current;
}

const PATH_FIELDS = ['certificate-authority', 'client-certificate', 'client-key', 'tokenFile'];

function absolutePaths(entry: Entry, base: string): Entry {
  const out = { ...entry };
  for (const field of PATH_FIELDS) {
    const value = out[field];
    if (typeof value === 'string' && value !== '' && !isAbsolute(value)) out[field] = join(base, value);
  }
  return out;
}

/** `<field>-data` (base64, preferred) or `<field>` (a file). */
function material(entry: Entry, field: string, source: KubeConfigSource): Material | undefined {
  const data = str(entry[`${field}-data`]);
  if (data) return { data: Buffer.from(data, 'base64') };
  const file = existingFile(str(entry[field]), field, source);
  return file ? { file } : undefined;
}

// Files named by the kubeconfig are read later (and again when rotated): a missing one is an error now, not an
// endless "waiting for the apiserver".
function existingFile(file: string | undefined, field: string, source: KubeConfigSource): string | undefined {
  if (file && !existsSync(file)) throw new KubeConfigError(`${source}: ${field} ${file} does not exist`);
  return file || undefined;
}

// Exec plugins, auth providers and proxies: client-node does these, loaded and handed the same files and context
// when the credentials are first used.
function delegated(files: string[], context: string, master: string | undefined, server: string): ApiserverCredentials {
  let inner: Promise<ApiserverCredentials> | undefined;
  const get = (): Promise<ApiserverCredentials> =>
    (inner ??= import('@kubernetes/client-node').then(({ KubeConfig: ClientNodeKubeConfig }) => {
      const kc: KubeConfig = new ClientNodeKubeConfig();
      files.forEach((file, i) => {
        const more = i === 0 ? kc : new ClientNodeKubeConfig();
        more.loadFromFile(file);
        if (i > 0) kc.mergeConfig(more, true);
      });
      kc.setCurrentContext(context);
      if (master) {
        const name = kc.getCurrentCluster()?.name;
        kc.clusters = kc.clusters.map((c) => (c.name === name ? { ...c, server: master } : c));
      }
      return kubeConfigCredentials(kc);
    }));
  return {
    server,
    authHeaders: async () => (await get()).authHeaders(),
    transport: async () => (await get()).transport(),
  };
}

function checkServer(server: string, source: KubeConfigSource, cluster: string): string {
  if (!server) throw new KubeConfigError(`${source}: cluster "${cluster}" has no server`);
  let url: URL;
  try {
    url = new URL(server);
  } catch {
    throw new KubeConfigError(`${source}: cluster "${cluster}" server is not a URL: ${server}`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new KubeConfigError(`${source}: cluster "${cluster}" server must be http(s): ${server}`);
  }
  return server;
}

function str(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

function isEntry(value: unknown): value is Entry {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
