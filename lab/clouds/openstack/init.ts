// Fills the cached state directory of the lab OpenStack once: MariaDB's data with every service's schema, the
// keystone bootstrap (fernet keys, admin, catalog, service users), octavia's test CA, the compute host's mapping,
// and the flavor, image and networks of resources.ts. Later runs copy it and start in under a minute.
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Ports } from './config.ts';
import { initMariaDb } from './infra.ts';
import { ADMIN, layoutOf, type Layout, OCTAVIA_CA_PASSPHRASE, REGION, stateDir, venvBin, venvDir } from './layout.ts';
import { runRootOf, runStep } from './process.ts';
import { createIdentity, createResources, type LabResources } from './resources.ts';
import { apiRoot } from './services.ts';
import { Stack } from './stack.ts';
import { allocatePorts, newRunId, netnsName } from './run.ts';

const execFileP = promisify(execFile);
const LOCK_POLL_MS = 2000;
const LOCK_TIMEOUT_MS = 30 * 60_000;

export interface InitResult {
  stateDir: string;
  resources: LabResources;
  /** False when the state directory was there already. */
  initialized: boolean;
  ms: number;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** An exclusive lock beside the state directory; a lock whose owner died is taken over. */
async function lock(path: string): Promise<() => void> {
  const deadline = Date.now() + LOCK_TIMEOUT_MS;
  while (Date.now() < deadline) {
    try {
      mkdirSync(path);
      writeFileSync(join(path, 'owner'), String(process.pid));
      return () => rmSync(path, { recursive: true, force: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const owner = Number(readFileSync(join(path, 'owner'), { encoding: 'utf8', flag: 'a+' }));
      if (owner > 0 && !alive(owner)) rmSync(path, { recursive: true, force: true });
      else await new Promise((resolve) => setTimeout(resolve, LOCK_POLL_MS));
    }
  }
  throw new Error(`timed out waiting for the lock ${path}`);
}

function readResources(dir: string): LabResources {
  return JSON.parse(readFileSync(join(dir, 'resources.json'), 'utf8')) as LabResources;
}

/**
 * Initializes the cached state directory (~/.cache/wasm-ccm/state/openstack-<key>) unless it is complete already;
 * safe to call from several processes at once. Takes ~5 minutes cold.
 */
export async function initOpenStack(log: (message: string) => void = () => {}): Promise<InitResult> {
  const started = Date.now();
  const venv = venvDir();
  const dir = stateDir(venv);
  const complete = join(dir, '.complete');
  if (existsSync(complete)) return { stateDir: dir, resources: readResources(dir), initialized: false, ms: 0 };
  mkdirSync(join(dir, '..'), { recursive: true });
  const unlock = await lock(`${dir}.lock`);
  try {
    if (existsSync(complete)) return { stateDir: dir, resources: readResources(dir), initialized: false, ms: 0 };
    rmSync(dir, { recursive: true, force: true });
    const runId = newRunId();
    const runRoot = runRootOf(runId);
    mkdirSync(runRoot);
    log(`initializing the lab OpenStack into ${dir} (logs in ${runRoot}/log)`);
    const resources = await initInto(runId, layoutOf(dir, runRoot), venv, log);
    writeFileSync(join(dir, 'resources.json'), `${JSON.stringify(resources, null, 2)}\n`);
    writeFileSync(complete, new Date().toISOString());
    rmSync(runRoot, { recursive: true, force: true });
    const ms = Date.now() - started;
    log(`initialized the lab OpenStack in ${ms} ms`);
    return { stateDir: dir, resources, initialized: true, ms };
  } finally {
    unlock();
  }
}

async function initInto(
  runId: string,
  layout: Layout,
  venv: string,
  log: (message: string) => void,
): Promise<LabResources> {
  const ports = await allocatePorts();
  const stack = new Stack({ runId, layout, venv, ports, netns: netnsName(runId), log });
  try {
    await Promise.all([createOctaviaCa(layout), initMariaDb(layout, ports.mariadb, stack.ctx.env)]);
    await stack.startMariaDb();
    await Promise.all([stack.startMessagingAndSwitch(), bootstrapKeystone(stack, ports)]);
    await stack.startApis(['keystone']);
    const admin = stack.adminClient();
    await createIdentity(admin, stack.apiRoots());
    await syncDatabases(stack);
    await stack.startApis(['placement', 'glance', 'neutron-api']);
    await stack.startDaemons(['neutron-rpc-server', 'nova-conductor', 'nova-scheduler', 'octavia-worker']);
    await stack.startApis(['nova-api', 'octavia-api']);
    await stack.startDaemons(['nova-compute', 'neutron-openvswitch-agent']);
    await manage(stack, 'nova-manage', stack.config.nova, ['cell_v2', 'discover_hosts', '--verbose']);
    return await createResources(admin);
  } finally {
    await stack.stop();
  }
}

function manage(stack: Stack, program: string, configFile: string, args: readonly string[]): Promise<void> {
  const name = `${program} ${args.slice(0, 2).join(' ')}`;
  return runStep(name, venvBin(stack.input.venv, program), ['--config-file', configFile, ...args], {
    logPath: join(stack.input.layout.log, `${program}.log`),
    env: stack.ctx.env,
  });
}

async function bootstrapKeystone(stack: Stack, ports: Ports): Promise<void> {
  const conf = stack.config.keystone;
  const owner = ['--keystone-user', 'root', '--keystone-group', 'root'];
  // Keystone warns on every token about key repositories others can read.
  mkdirSync(stack.input.layout.fernetKeys, { recursive: true, mode: 0o700 });
  mkdirSync(stack.input.layout.credentialKeys, { recursive: true, mode: 0o700 });
  await manage(stack, 'keystone-manage', conf, ['db_sync']);
  await manage(stack, 'keystone-manage', conf, ['fernet_setup', ...owner]);
  await manage(stack, 'keystone-manage', conf, ['credential_setup', ...owner]);
  const url = `${apiRoot(ports, 'keystone')}/v3`;
  await manage(stack, 'keystone-manage', conf, [
    'bootstrap',
    '--bootstrap-password',
    ADMIN.password,
    '--bootstrap-username',
    ADMIN.username,
    '--bootstrap-project-name',
    ADMIN.project,
    '--bootstrap-role-name',
    'admin',
    '--bootstrap-service-name',
    'keystone',
    '--bootstrap-region-id',
    REGION,
    '--bootstrap-admin-url',
    url,
    '--bootstrap-internal-url',
    url,
    '--bootstrap-public-url',
    url,
  ]);
}

/**
 * Every service's schema, the services side by side. Nova's cells name their database and broker by templates
 * filled from nova.conf, so the mapping stays right when a later run moves MariaDB and RabbitMQ to other ports.
 */
async function syncDatabases(stack: Stack): Promise<void> {
  const { config } = stack;
  const cellDb = (db: string): string => `{scheme}://{username}:{password}@{hostname}:{port}/${db}?{query}`;
  const started = Date.now();
  await Promise.all([
    manage(stack, 'placement-manage', join(config.placementDir, 'placement.conf'), ['db', 'sync']),
    manage(stack, 'glance-manage', join(config.glanceDir, 'glance-api.conf'), ['db_sync']),
    manage(stack, 'neutron-db-manage', config.neutron, ['upgrade', 'heads']),
    manage(stack, 'octavia-db-manage', config.octavia, ['upgrade', 'head']),
    (async () => {
      await manage(stack, 'nova-manage', config.nova, ['api_db', 'sync']);
      await manage(stack, 'nova-manage', config.nova, [
        'cell_v2',
        'map_cell0',
        '--database_connection',
        cellDb('nova_cell0'),
      ]);
      await manage(stack, 'nova-manage', config.nova, [
        'cell_v2',
        'create_cell',
        '--name',
        'cell1',
        '--database_connection',
        cellDb('nova'),
        '--transport-url',
        '{scheme}://{username}:{password}@{hostname}:{port}/{path}',
      ]);
      await manage(stack, 'nova-manage', config.nova, ['db', 'sync']);
    })(),
  ]);
  stack.input.log(`databases migrated in ${Date.now() - started} ms`);
}

/** The test CA octavia's certificate generator signs with (its key encrypted, as octavia requires). */
async function createOctaviaCa(layout: Layout): Promise<void> {
  const dir = layout.octaviaCa;
  mkdirSync(dir, { recursive: true });
  const openssl = (args: string[]): Promise<unknown> => execFileP('openssl', args, { cwd: dir });
  const pass = `pass:${OCTAVIA_CA_PASSPHRASE}`;
  await openssl([
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-keyout',
    'ca.key',
    '-passout',
    pass,
    '-out',
    'ca.pem',
    '-days',
    '3650',
    '-subj',
    '/CN=wasm-ccm lab octavia CA',
  ]);
  await openssl([
    'req',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-keyout',
    'client.key',
    '-out',
    'client.csr',
    '-subj',
    '/CN=wasm-ccm lab octavia client',
  ]);
  await openssl([
    'x509',
    '-req',
    '-in',
    'client.csr',
    '-CA',
    'ca.pem',
    '-CAkey',
    'ca.key',
    '-passin',
    pass,
    '-CAcreateserial',
    '-out',
    'client.crt',
    '-days',
    '3650',
  ]);
  writeFileSync(
    join(dir, 'client.pem'),
    readFileSync(join(dir, 'client.crt'), 'utf8') + readFileSync(join(dir, 'client.key'), 'utf8'),
  );
}
