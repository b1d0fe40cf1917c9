// Keystone alone, the real one (keystone 30 from the lab OpenStack's venv), on SQLite and a free loopback port: for
// tests of the host's Keystone login that need no nova or neutron. The database, the fernet keys and the bootstrap
// (admin user and project, RegionOne, the identity endpoint) are made once into a cached state directory per venv
// (`keystone-manage` takes ~10 s a command on two busy cores); each run serves a copy of it with the lab's
// wsgi_runner.py. The whole stack (index.ts) has keystone too, with nova and the rest, and takes a minute to start.
//
//   const keystone = await startKeystoneOnly();
//   const token = await keystone.adminToken();
//   await keystone.addService('compute', 'nova', 'http://127.0.0.1:8774/v2.1');
//   await keystone.stop();
import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { promisify } from 'node:util';
import { GiveUp, waitFor } from '../../controlplane/index.ts';
import { freePort, ManagedProcess, onProcessExit } from '../../process/index.ts';
import { cacheDir, HERE, venvBin, venvDir } from './layout.ts';

const execFileP = promisify(execFile);

export const KEYSTONE_REGION = 'RegionOne';
export const KEYSTONE_ADMIN = {
  userName: 'admin',
  password: 'lab-admin-password',
  projectName: 'admin',
  domain: 'Default',
};
// Bumped when the state's making changes: a new cache directory.
const STATE_VERSION = 1;

export interface KeystoneApiAnswer {
  status: number;
  headers: Headers;
  body: unknown;
}

export interface KeystoneOnly {
  /** `http://127.0.0.1:<port>/v3` */
  authURL: string;
  /** `127.0.0.1:<port>` */
  host: string;
  logPath: string;
  /** A token of the admin, scoped to the admin project. */
  adminToken(): Promise<string>;
  /** A call to the identity API with the admin's token. */
  api(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<KeystoneApiAnswer>;
  /** A service with a public endpoint in RegionOne. */
  addService(type: string, name: string, url: string): Promise<void>;
  /** An application credential of the admin (on the admin project): its ID and secret. */
  createApplicationCredential(name: string): Promise<{ id: string; secret: string }>;
  /** Whether Keystone still takes `token` (GET /v3/auth/tokens). */
  tokenValid(token: string): Promise<boolean>;
  /** Revokes `token` (DELETE /v3/auth/tokens). */
  revoke(token: string): Promise<void>;
  stop(): Promise<void>;
}

function keystoneConf(dir: string): string {
  return [
    '[DEFAULT]',
    'debug = false',
    '[database]',
    `connection = sqlite:///${join(dir, 'keystone.db')}`,
    '[token]',
    'provider = fernet',
    '[fernet_tokens]',
    `key_repository = ${join(dir, 'fernet-keys')}`,
    '[fernet_receipts]',
    `key_repository = ${join(dir, 'fernet-keys')}`,
    '[credential]',
    `key_repository = ${join(dir, 'credential-keys')}`,
    '[cache]',
    'enabled = true',
    'backend = dogpile.cache.memory',
    // bcrypt's lowest cost: the lab's passwords guard nothing, and every login hashes one.
    '[identity]',
    'password_hash_algorithm = bcrypt',
    'password_hash_rounds = 4',
    '',
  ].join('\n');
}

function writeConf(dir: string): string {
  for (const keys of ['fernet-keys', 'credential-keys']) mkdirSync(join(dir, keys), { recursive: true, mode: 0o700 });
  const conf = join(dir, 'keystone.conf');
  writeFileSync(conf, keystoneConf(dir));
  return conf;
}

/** The initialized state (database, keys, bootstrap), made once per venv; its directory. */
async function keystoneState(venv: string, log: (m: string) => void): Promise<string> {
  const state = join(cacheDir(), 'state', `keystone-only-v${STATE_VERSION}-${basename(venv)}`);
  if (existsSync(join(state, 'keystone.db'))) return state;
  const building = mkdtempSync(join(tmpdir(), 'wasm-ccm-keystone-init-'));
  const conf = writeConf(building);
  const manage = venvBin(venv, 'keystone-manage');
  const owner = ['--keystone-user', 'root', '--keystone-group', 'root'];
  const started = Date.now();
  for (const args of [
    ['db_sync'],
    ['fernet_setup', ...owner],
    ['credential_setup', ...owner],
    [
      'bootstrap',
      ...['--bootstrap-username', KEYSTONE_ADMIN.userName, '--bootstrap-password', KEYSTONE_ADMIN.password],
      ...['--bootstrap-project-name', KEYSTONE_ADMIN.projectName, '--bootstrap-role-name', 'admin'],
      ...['--bootstrap-service-name', 'keystone', '--bootstrap-region-id', KEYSTONE_REGION],
      // Replaced by each run's URL (its port is the run's).
      ...['--bootstrap-public-url', 'http://127.0.0.1:1/v3'],
    ],
  ]) {
    await execFileP(manage, ['--config-file', conf, ...args], { env: { ...process.env } });
  }
  log(`keystone state initialized in ${Date.now() - started} ms`);
  mkdirSync(join(cacheDir(), 'state'), { recursive: true });
  // Another run may have made it meanwhile: the first rename wins.
  if (!existsSync(join(state, 'keystone.db'))) {
    rmSync(state, { recursive: true, force: true });
    renameSync(building, state);
  } else {
    rmSync(building, { recursive: true, force: true });
  }
  return state;
}

export async function startKeystoneOnly(options: { log?: (message: string) => void } = {}): Promise<KeystoneOnly> {
  const log = options.log ?? (() => {});
  const venv = venvDir();
  const state = await keystoneState(venv, log);
  const dir = mkdtempSync(join(tmpdir(), 'wasm-ccm-keystone-'));
  const removeExitHook = onProcessExit(() => rmSync(dir, { recursive: true, force: true }));
  cpSync(state, dir, { recursive: true });
  const conf = writeConf(dir);
  const port = await freePort();
  const host = `127.0.0.1:${port}`;
  const authURL = `http://${host}/v3`;
  const runner = join(HERE, 'wsgi_runner.py');
  const server = new ManagedProcess('keystone', venvBin(venv, 'python'), [runner, 'keystone.wsgi.api', String(port)], {
    logPath: join(dir, 'keystone.log'),
    env: { ...process.env, OS_KEYSTONE_CONFIG_FILES: conf },
  });
  const stop = async (): Promise<void> => {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
    removeExitHook();
  };
  try {
    await waitFor(
      'keystone to serve',
      async () => {
        if (!server.running) throw new GiveUp('keystone exited');
        return (await fetch(authURL)).ok;
      },
      120_000,
      () => `keystone log tail:\n${server.tail()}`,
      200,
    );
    const keystone = keystoneClient(authURL, host, server.logPath, stop);
    await keystone.fixIdentityEndpoint();
    return keystone;
  } catch (err) {
    await stop();
    throw err;
  }
}

function keystoneClient(authURL: string, host: string, logPath: string, stop: () => Promise<void>) {
  let admin: string | undefined;
  const adminToken = async (): Promise<string> => {
    if (admin !== undefined) return admin;
    const res = await fetch(`${authURL}/auth/tokens`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        auth: {
          identity: {
            methods: ['password'],
            password: {
              user: {
                name: KEYSTONE_ADMIN.userName,
                domain: { name: KEYSTONE_ADMIN.domain },
                password: KEYSTONE_ADMIN.password,
              },
            },
          },
          scope: { project: { name: KEYSTONE_ADMIN.projectName, domain: { name: KEYSTONE_ADMIN.domain } } },
        },
      }),
    });
    const token = res.headers.get('x-subject-token');
    if (res.status !== 201 || token === null)
      throw new Error(`admin login answered ${res.status}: ${await res.text()}`);
    admin = token;
    return token;
  };
  const api = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const res = await fetch(`${authURL}${path}`, {
      method,
      headers: { 'x-auth-token': await adminToken(), 'content-type': 'application/json', ...headers },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    const text = await res.text();
    return { status: res.status, headers: res.headers, body: text === '' ? undefined : (JSON.parse(text) as unknown) };
  };
  const expect = (answer: KeystoneApiAnswer, status: number, what: string): KeystoneApiAnswer => {
    if (answer.status !== status) throw new Error(`${what} answered ${answer.status}: ${JSON.stringify(answer.body)}`);
    return answer;
  };
  const addService = async (type: string, name: string, url: string): Promise<void> => {
    const service = expect(await api('POST', '/services', { service: { type, name } }), 201, `creating ${name}`);
    const id = (service.body as { service: { id: string } }).service.id;
    const endpoint = { service_id: id, interface: 'public', region_id: KEYSTONE_REGION, url };
    expect(await api('POST', '/endpoints', { endpoint }), 201, `the ${name} endpoint`);
  };
  return {
    authURL,
    host,
    logPath,
    adminToken,
    api,
    addService,
    async createApplicationCredential(name: string) {
      const token = await adminToken();
      const me = expect(await api('GET', '/auth/tokens', undefined, { 'x-subject-token': token }), 200, 'the admin');
      const userId = (me.body as { token: { user: { id: string } } }).token.user.id;
      const created = expect(
        await api('POST', `/users/${userId}/application_credentials`, { application_credential: { name } }),
        201,
        `application credential ${name}`,
      );
      const credential = (created.body as { application_credential: { id: string; secret: string } })
        .application_credential;
      return { id: credential.id, secret: credential.secret };
    },
    async tokenValid(token: string) {
      return (await api('GET', '/auth/tokens', undefined, { 'x-subject-token': token })).status === 200;
    },
    async revoke(token: string) {
      expect(await api('DELETE', '/auth/tokens', undefined, { 'x-subject-token': token }), 204, 'revoking a token');
    },
    // The bootstrap wrote a placeholder URL for the identity endpoint: this run's is its own.
    async fixIdentityEndpoint() {
      const listed = expect(await api('GET', '/endpoints'), 200, 'listing endpoints');
      for (const endpoint of (listed.body as { endpoints: Array<{ id: string }> }).endpoints) {
        expect(
          await api('PATCH', `/endpoints/${endpoint.id}`, { endpoint: { url: authURL } }),
          200,
          'the identity endpoint',
        );
      }
    },
    stop,
  };
}
