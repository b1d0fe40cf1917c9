// The lab OpenStack's own services: the APIs (each a WSGI application served by wsgi_runner.py on 127.0.0.1) and
// the RPC services behind them, each started with the files config.ts wrote and waited for until it serves.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { ConfigFiles, Ports } from './config.ts';
import { transportUrl } from './config.ts';
import { COMPUTE_HOST, HERE, type Layout, venvBin } from './layout.ts';
import { ServiceProcess } from './process.ts';
import { waitUntil } from './wait.ts';

const execFileP = promisify(execFile);

export interface ServiceContext {
  layout: Layout;
  venv: string;
  ports: Ports;
  config: ConfigFiles;
  /** The environment every service starts with: the stack's markers, the venv first on PATH, OVS's paths. */
  env: NodeJS.ProcessEnv;
}

/** An API: a WSGI module of the venv, served on one of the run's ports. */
interface ApiSpec {
  module: string;
  port: (ports: Ports) => number;
  env?: (config: ConfigFiles) => Record<string, string>;
  args?: (config: ConfigFiles) => string[];
  /** A path that answers 200 without a token once the service runs. */
  probe: string;
}

export const APIS = {
  keystone: {
    module: 'keystone.wsgi.api',
    port: (p) => p.keystone,
    env: (c) => ({ OS_KEYSTONE_CONFIG_FILES: c.keystone }),
    probe: '/v3',
  },
  placement: {
    module: 'placement.wsgi.api',
    port: (p) => p.placement,
    env: (c) => ({ OS_PLACEMENT_CONFIG_DIR: c.placementDir }),
    probe: '/',
  },
  glance: {
    module: 'glance.wsgi.api',
    port: (p) => p.glance,
    env: (c) => ({ OS_GLANCE_CONFIG_DIR: c.glanceDir }),
    probe: '/versions',
  },
  'nova-api': {
    module: 'nova.wsgi.osapi_compute',
    port: (p) => p.nova,
    env: (c) => ({ OS_NOVA_CONFIG_DIR: c.novaDir }),
    probe: '/',
  },
  'neutron-api': {
    module: 'neutron.wsgi.api',
    port: (p) => p.neutron,
    env: (c) => ({ OS_NEUTRON_CONFIG_DIR: c.neutronDir, OS_NEUTRON_CONFIG_FILES: 'neutron.conf' }),
    probe: '/',
  },
  'octavia-api': {
    module: 'octavia.wsgi.api',
    port: (p) => p.octavia,
    args: (c) => ['--config-file', c.octavia],
    probe: '/',
  },
} satisfies Record<string, ApiSpec>;

export type ApiName = keyof typeof APIS;

/** The RPC services: a console script of the venv reading one configuration file. */
const DAEMONS = {
  'nova-conductor': (c: ConfigFiles) => c.nova,
  'nova-scheduler': (c: ConfigFiles) => c.nova,
  'nova-compute': (c: ConfigFiles) => c.nova,
  'neutron-rpc-server': (c: ConfigFiles) => c.neutron,
  'neutron-openvswitch-agent': (c: ConfigFiles) => c.neutron,
  'octavia-worker': (c: ConfigFiles) => c.octavia,
} as const;

export type DaemonName = keyof typeof DAEMONS;

/** The queue each RPC service consumes once it serves (neutron's agent is judged by its heartbeat instead). */
export const RPC_QUEUES: Partial<Record<DaemonName, string>> = {
  'nova-conductor': 'conductor',
  'nova-scheduler': 'scheduler',
  'nova-compute': `compute.${COMPUTE_HOST}`,
  'neutron-rpc-server': 'q-plugin',
  'octavia-worker': 'octavia_provisioning_v2',
};

export function apiRoot(ports: Ports, name: ApiName): string {
  return `http://127.0.0.1:${APIS[name].port(ports)}`;
}

function logPath(ctx: ServiceContext, name: string): string {
  return join(ctx.layout.log, `${name}.log`);
}

export function startApi(ctx: ServiceContext, name: ApiName): ServiceProcess {
  const spec: ApiSpec = APIS[name];
  const args = [
    join(HERE, 'wsgi_runner.py'),
    spec.module,
    String(spec.port(ctx.ports)),
    ...(spec.args?.(ctx.config) ?? []),
  ];
  return new ServiceProcess(name, venvBin(ctx.venv, 'python'), args, {
    logPath: logPath(ctx, name),
    env: { ...ctx.env, ...spec.env?.(ctx.config) },
  });
}

/** Waits until the API answers its probe with 200. */
export async function apiReady(ctx: ServiceContext, name: ApiName, service: ServiceProcess): Promise<void> {
  const url = `${apiRoot(ctx.ports, name)}${APIS[name].probe}`;
  await waitUntil(service, `${name} to answer ${url}`, async () => (await fetch(url)).status === 200, 300_000, 500);
}

export function startDaemon(ctx: ServiceContext, name: DaemonName): ServiceProcess {
  return new ServiceProcess(name, venvBin(ctx.venv, name), ['--config-file', DAEMONS[name](ctx.config)], {
    logPath: logPath(ctx, name),
    env: ctx.env,
  });
}

/** How many consumers each queue has on the run's broker (-1: no such queue yet). */
export async function queueConsumers(ctx: ServiceContext, queues: readonly string[]): Promise<Record<string, number>> {
  // The same broker: kombu names the scheme amqp where oslo.messaging says rabbit.
  const { stdout } = await execFileP(
    venvBin(ctx.venv, 'python'),
    [join(HERE, 'rpc_consumers.py'), transportUrl(ctx.ports).replace(/^rabbit:/, 'amqp:'), ...queues],
    { env: ctx.env, timeout: 30_000 },
  );
  return JSON.parse(stdout) as Record<string, number>;
}

/** Waits until every service's RPC queue has a consumer: a cast to it is then delivered. */
export async function rpcReady(ctx: ServiceContext, services: ReadonlyMap<DaemonName, ServiceProcess>): Promise<void> {
  const queues = [...services.keys()].flatMap((name) => RPC_QUEUES[name] ?? []);
  if (queues.length === 0) return;
  await waitUntil(
    [...services.values()],
    `RPC consumers on ${queues.join(', ')}`,
    async () => Object.values(await queueConsumers(ctx, queues)).every((count) => count > 0),
    300_000,
    1000,
  );
}
