// A Keystone login credential in the plugin HTTP broker (host/src/plugin/broker/login-flow.ts): how long a login takes
// against the real keystone (lab/clouds/openstack/keystone-only.ts: keystone 30 on SQLite, bcrypt at its lowest cost),
// with a password and with an application credential, over the host's own HTTP client; and the broker's CPU per
// request with the Keystone token attached against the same request with a bearer token of the same length, to an
// endpoint in a child process (so its CPU is not counted), rounds interleaved.
//
// Usage: node bench/plugin-runtime/broker-login.ts [--logins=20] [--requests=3000] [--rounds=3]
//        [--out=bench/results/broker-login.json]
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { silentLogger } from '../../host/src/log/logger.ts';
import { CredentialStore } from '../../host/src/plugin/broker/credential-store.ts';
import { HostAllowList } from '../../host/src/plugin/broker/allow-list.ts';
import { HttpBroker } from '../../host/src/plugin/broker/http-broker.ts';
import { keystoneLoginEntry } from '../../host/src/plugin/broker/keystone-flow.ts';
import { LoginSessions } from '../../host/src/plugin/broker/login-sessions.ts';
import { parseCredentialFile } from '../../host/src/plugin/broker/credential-file.ts';
import { KEYSTONE_ADMIN, KEYSTONE_REGION, startKeystoneOnly } from '../../lab/clouds/openstack/index.ts';
import { formatTable, loadNow, median, percentile, writeResults } from '../../lab/measure/index.ts';

const { values } = parseArgs({
  options: {
    logins: { type: 'string', default: '20' },
    requests: { type: 'string', default: '3000' },
    rounds: { type: 'string', default: '3' },
    out: { type: 'string', default: new URL('../results/broker-login.json', import.meta.url).pathname },
  },
});
const LOGINS = Number(values.logins);
const REQUESTS = Number(values.requests);
const ROUNDS = Number(values.rounds);

// The endpoint: a 1 KiB JSON answer to every request, in a process of its own.
const ENDPOINT = `
const body = JSON.stringify({ flavors: Array.from({ length: 12 }, (_, i) => ({ id: String(i), name: 'm1.flavor-' + i })) });
require('node:http').createServer((req, res) => { req.resume(); req.on('end', () => res.end(body)); })
  .listen(0, '127.0.0.1', function () { process.stdout.write(String(this.address().port) + '\\n'); });
`;

const loadBefore = loadNow();
const dir = mkdtempSync(join(tmpdir(), 'wasm-ccm-bench-login-'));
const keystone = await startKeystoneOnly({ log: (m) => console.log(m) });
const endpoint = spawn(process.execPath, ['-e', ENDPOINT], { stdio: ['ignore', 'pipe', 'inherit'] });
const port = await new Promise<number>((resolve) => endpoint.stdout.once('data', (d: Buffer) => resolve(Number(d))));
const endpointURL = `http://127.0.0.1:${port}/v2.1`;
try {
  await keystone.addService('compute', 'nova', endpointURL);
  const credential = await keystone.createApplicationCredential(`bench-${Date.now()}`);
  writeFileSync(join(dir, 'password'), KEYSTONE_ADMIN.password);
  writeFileSync(join(dir, 'app-secret'), credential.secret);
  const password = {
    userName: KEYSTONE_ADMIN.userName,
    userDomainName: KEYSTONE_ADMIN.domain,
    passwordFile: 'password',
    projectName: KEYSTONE_ADMIN.projectName,
    projectDomainName: KEYSTONE_ADMIN.domain,
  };
  const app = { applicationCredentialID: credential.id, applicationCredentialSecretFile: 'app-secret' };
  const logins = [
    { method: 'password', ms: await loginTimes(password) },
    { method: 'application credential', ms: await loginTimes(app) },
  ];
  const cpu = await requestCpu(password);
  console.log(
    formatTable(
      ['login', 'median ms', 'p90 ms', 'min ms'],
      logins.map((l) => [l.method, fixed(median(l.ms)), fixed(p(l.ms, 90)), fixed(Math.min(...l.ms))]),
    ),
  );
  console.log(
    formatTable(
      ['attached', 'CPU us per request (median of rounds)', 'rounds'],
      Object.entries(cpu).map(([k, v]) => [k, fixed(median(v)), v.map(fixed).join(' ')]),
    ),
  );
  writeResults(values.out, 'broker-login', loadBefore, {
    logins: logins.map((l) => ({ method: l.method, count: l.ms.length, median_ms: median(l.ms), p90_ms: p(l.ms, 90) })),
    requests_per_round: REQUESTS,
    cpu_us_per_request: Object.fromEntries(Object.entries(cpu).map(([k, v]) => [k, { median: median(v), rounds: v }])),
  });
} finally {
  endpoint.kill();
  await keystone.stop();
  rmSync(dir, { recursive: true, force: true });
}

function fixed(n: number): string {
  return n.toFixed(1);
}

function p(values: number[], q: number): number {
  return percentile(
    [...values].sort((a, b) => a - b),
    q,
  );
}

function credentialsFile(name: string, fields: Record<string, string>): string {
  const file = join(dir, `${name}.json`);
  const keystoneFields = { authURL: keystone.authURL, region: KEYSTONE_REGION, ...fields };
  writeFileSync(
    file,
    JSON.stringify({ credentials: [{ name, hostsFromCatalog: true, insecure: true, keystone: keystoneFields }] }),
  );
  return file;
}

// Each login a real one: a renewal after a refusal logs in anew.
async function loginTimes(fields: Record<string, string>): Promise<number[]> {
  const file = credentialsFile('timed', fields);
  const [credential] = parseCredentialFile(readFileSync(file, 'utf8'), file);
  if (credential?.secret.kind !== 'login' || credential.secret.login.flow !== 'keystone') {
    throw new Error('not a keystone entry');
  }
  // Back to back: no interval between logins for 401s.
  const sessions = new LoginSessions({ logger: silentLogger, minRefusalLoginIntervalMs: 0 });
  sessions.install([await keystoneLoginEntry(credential, credential.secret.login.entry, file)]);
  const times: number[] = [];
  try {
    let use = await sessions.use('timed', new URL(keystone.authURL));
    for (let i = 0; i < LOGINS; i++) {
      const started = performance.now();
      const renewed = await use.renew();
      if (renewed === undefined) throw new Error('no new session');
      use = renewed;
      times.push(performance.now() - started);
    }
  } finally {
    sessions.close();
  }
  return times;
}

async function requestCpu(fields: Record<string, string>): Promise<Record<string, number[]>> {
  const store = await CredentialStore.open({
    file: credentialsFile('openstack', fields),
    reloadIntervalMs: 0,
    logger: silentLogger,
  });
  await store.startLogins();
  const token = await tokenLength(store);
  writeFileSync(
    join(dir, 'bearer.json'),
    JSON.stringify({
      credentials: [{ name: 'bearer', hosts: [`127.0.0.1:${port}`], bearerToken: 'b'.repeat(token), insecure: true }],
    }),
  );
  const bearer = await CredentialStore.open({
    file: join(dir, 'bearer.json'),
    reloadIntervalMs: 0,
    logger: silentLogger,
  });
  const brokers = {
    'Keystone token (X-Auth-Token)': brokerWith(store),
    [`bearer token of the same length (${token} bytes)`]: brokerWith(bearer),
  };
  const out: Record<string, number[]> = Object.fromEntries(Object.keys(brokers).map((k) => [k, []]));
  const request = frame({ method: 'GET', url: `${endpointURL}/flavors`, headers: {}, timeoutMs: 0 });
  for (const broker of Object.values(brokers)) await run(broker, request, 300);
  for (let round = 0; round < ROUNDS; round++) {
    for (const [name, broker] of Object.entries(brokers)) {
      const start = process.cpuUsage();
      await run(broker, request, REQUESTS);
      const used = process.cpuUsage(start);
      out[name]?.push((used.user + used.system) / REQUESTS);
    }
  }
  for (const broker of Object.values(brokers)) broker.close();
  store.close();
  bearer.close();
  return out;
}

async function tokenLength(store: CredentialStore): Promise<number> {
  const authorized = await store.authorize({ method: 'GET', url: new URL(`${endpointURL}/flavors`), headers: {} });
  return authorized?.headers['x-auth-token']?.length ?? 0;
}

function brokerWith(credentials: CredentialStore): HttpBroker {
  return new HttpBroker({
    allowList: new HostAllowList([`127.0.0.1:${port}`]),
    credentials,
    maxResponseBytes: 1 << 20,
    defaultTimeoutMs: 5000,
    maxTimeoutMs: 5000,
    maxRedirects: 0,
  });
}

// A ccm_http_bytes request frame, as a plugin's worker hands it over: [u32 LE head length][JSON head][body].
function frame(head: unknown): Uint8Array {
  const bytes = Buffer.from(JSON.stringify(head));
  const out = Buffer.alloc(4 + bytes.length);
  out.writeUInt32LE(bytes.length, 0);
  bytes.copy(out, 4);
  return out;
}

async function run(broker: HttpBroker, request: Uint8Array, count: number): Promise<void> {
  const signal = new AbortController().signal;
  for (let i = 0; i < count; i++) {
    const answer = Buffer.from(await broker.handleBytes(request, signal));
    const head = answer.subarray(4, 4 + answer.readUInt32LE(0)).toString();
    if (!head.startsWith('{"status":200')) throw new Error(`unexpected answer ${head.slice(0, 200)}`);
  }
}
