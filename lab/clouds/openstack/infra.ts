// The lab OpenStack's infrastructure, each a process of the stack's own bound to 127.0.0.1 (never the Debian
// packages' system services): MariaDB, RabbitMQ and a userspace Open vSwitch whose switch runs in a private network
// namespace, so the bridges and devices it creates stay out of the machine's own network.
import { execFile } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { DATABASES, DB_PASSWORD, DB_USER, EXTERNAL_PHYSNET, type Layout, TENANT_PHYSNET } from './layout.ts';
import { runStep, ServiceProcess } from './process.ts';
import { waitUntil } from './wait.ts';

const execFileP = promisify(execFile);

/** The bridges the neutron agent maps its physical networks to; they must exist before the agent starts. */
export const PHYSNET_BRIDGES: Record<string, string> = {
  [TENANT_PHYSNET]: 'br-physnet1',
  [EXTERNAL_PHYSNET]: 'br-public',
};

function mariadbArgs(layout: Layout, port: number): string[] {
  return [
    '--no-defaults',
    `--datadir=${layout.mysqlData}`,
    `--socket=${join(layout.run, 'mysql.sock')}`,
    `--pid-file=${join(layout.run, 'mysql.pid')}`,
    `--port=${port}`,
    '--bind-address=127.0.0.1',
    '--user=root',
    '--skip-name-resolve',
    // A dozen services with connection pools; the default 151 runs out.
    '--max-connections=1000',
    '--innodb-buffer-pool-size=128M',
    '--innodb-log-file-size=16M',
    // A test fixture's database: losing the last second on a crash is fine, waiting on fsync for every
    // migration step is not.
    '--innodb-flush-log-at-trx-commit=0',
    '--innodb-doublewrite=0',
    '--character-set-server=utf8mb4',
    '--collation-server=utf8mb4_general_ci',
  ];
}

/**
 * Connects to a loopback port, sends `hello` (if any) and judges the first bytes the server sends; false on an error
 * or after 2 s of silence.
 */
function probeTcp(port: number, accept: (data: Buffer) => boolean, hello?: Buffer): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    const done = (ok: boolean): void => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(2000, () => done(false));
    if (hello) socket.once('connect', () => socket.write(hello));
    socket.once('data', (data: Buffer) => done(accept(data)));
    socket.once('error', () => done(false));
  });
}

/** True once the server has sent its greeting packet: it accepts clients. */
function mysqlGreets(port: number): Promise<boolean> {
  return probeTcp(port, () => true);
}

export async function startMariaDb(layout: Layout, port: number, env: NodeJS.ProcessEnv): Promise<ServiceProcess> {
  const mysqld = new ServiceProcess('mariadb', 'mariadbd', mariadbArgs(layout, port), {
    logPath: join(layout.log, 'mariadb.log'),
    env,
  });
  await waitUntil(mysqld, 'MariaDB to accept clients', () => mysqlGreets(port), 120_000);
  return mysqld;
}

/** A fresh MariaDB data directory with the services' databases and the one user they all connect as. */
export async function initMariaDb(layout: Layout, port: number, env: NodeJS.ProcessEnv): Promise<void> {
  mkdirSync(layout.mysqlData, { recursive: true });
  const logPath = join(layout.log, 'mariadb-init.log');
  await runStep(
    'mariadb-install-db',
    'mariadb-install-db',
    [
      '--no-defaults',
      `--datadir=${layout.mysqlData}`,
      '--auth-root-authentication-method=normal',
      '--skip-test-db',
      '--user=root',
    ],
    { logPath, env },
  );
  const mysqld = await startMariaDb(layout, port, env);
  try {
    const sql = [
      `CREATE USER '${DB_USER}'@'127.0.0.1' IDENTIFIED BY '${DB_PASSWORD}';`,
      ...DATABASES.flatMap((db) => [
        `CREATE DATABASE ${db} CHARACTER SET utf8mb4;`,
        `GRANT ALL PRIVILEGES ON ${db}.* TO '${DB_USER}'@'127.0.0.1';`,
      ]),
    ].join(' ');
    const socket = join(layout.run, 'mysql.sock');
    await runStep('mariadb databases', 'mariadb', ['--no-defaults', '-S', socket, '-uroot', '-e', sql], {
      logPath,
      env,
    });
  } finally {
    await mysqld.stop(60_000);
  }
}

export interface RabbitPorts {
  amqp: number;
  dist: number;
  epmd: number;
}

/** RabbitMQ with a fresh, empty node in the run directory (queues are never worth keeping between runs). */
export async function startRabbit(layout: Layout, ports: RabbitPorts, env: NodeJS.ProcessEnv): Promise<ServiceProcess> {
  mkdirSync(layout.rabbit, { recursive: true });
  writeFileSync(join(layout.rabbit, 'enabled_plugins'), '[].\n');
  const rabbitEnv: NodeJS.ProcessEnv = {
    ...env,
    HOME: layout.rabbit, // the Erlang cookie goes there
    RABBITMQ_NODENAME: `rabbit-${ports.amqp}@localhost`,
    RABBITMQ_NODE_IP_ADDRESS: '127.0.0.1',
    RABBITMQ_NODE_PORT: String(ports.amqp),
    RABBITMQ_DIST_PORT: String(ports.dist),
    ERL_EPMD_PORT: String(ports.epmd),
    ERL_EPMD_ADDRESS: '127.0.0.1',
    // Without it Erlang's distribution port listens on every interface.
    RABBITMQ_SERVER_ADDITIONAL_ERL_ARGS: '-kernel inet_dist_use_interface {127,0,0,1}',
    RABBITMQ_MNESIA_BASE: join(layout.rabbit, 'mnesia'),
    RABBITMQ_LOG_BASE: join(layout.rabbit, 'log'),
    RABBITMQ_LOGS: '-',
    RABBITMQ_ENABLED_PLUGINS_FILE: join(layout.rabbit, 'enabled_plugins'),
    RABBITMQ_CONF_ENV_FILE: '/dev/null',
    RABBITMQ_CONFIG_FILE: join(layout.rabbit, 'rabbitmq'),
    RABBITMQ_ADVANCED_CONFIG_FILE: join(layout.rabbit, 'advanced.config'),
    RABBITMQ_PID_FILE: join(layout.rabbit, 'rabbit.pid'),
  };
  const rabbit = new ServiceProcess('rabbitmq', '/usr/lib/rabbitmq/bin/rabbitmq-server', [], {
    logPath: join(layout.log, 'rabbitmq.log'),
    env: rabbitEnv,
  });
  await waitUntil(rabbit, 'RabbitMQ to accept AMQP clients', () => amqpAnswers(ports.amqp), 180_000);
  return rabbit;
}

/** True once the broker answers the AMQP 0-9-1 protocol header (with its Connection.Start method frame). */
function amqpAnswers(port: number): Promise<boolean> {
  // frame type 1: a method frame
  return probeTcp(port, (data) => data[0] === 1, Buffer.from([0x41, 0x4d, 0x51, 0x50, 0, 0, 9, 1]));
}

export interface Ovs {
  processes: ServiceProcess[];
  /** `unix:<path>` of ovsdb-server, for ovs-vsctl and the neutron agent. */
  dbConnection: string;
  /** The environment the OVS tools need to find the switch's control sockets. */
  env: NodeJS.ProcessEnv;
}

export function ovsEnv(layout: Layout, env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return { ...env, OVS_RUNDIR: layout.ovs, OVS_LOGDIR: layout.ovs, OVS_DBDIR: layout.ovs };
}

async function vsctl(dbConnection: string, env: NodeJS.ProcessEnv, args: string[]): Promise<string> {
  const { stdout } = await execFileP('ovs-vsctl', [`--db=${dbConnection}`, '--timeout=60', ...args], { env });
  return stdout;
}

type Starter = (name: string, command: string, args: string[]) => ServiceProcess;

/** A fresh ovsdb-server in the run's OVS directory; returns its `unix:` connection once it serves. */
async function startOvsdb(layout: Layout, env: NodeJS.ProcessEnv, start: Starter): Promise<string> {
  const db = join(layout.ovs, 'conf.db');
  const sock = join(layout.ovs, 'db.sock');
  await runStep('ovsdb-tool', 'ovsdb-tool', ['create', db, '/usr/share/openvswitch/vswitch.ovsschema'], {
    logPath: join(layout.log, 'ovsdb-tool.log'),
    env,
  });
  const ovsdb = start('ovsdb-server', 'ovsdb-server', [
    db,
    `--remote=punix:${sock}`,
    `--unixctl=${join(layout.ovs, 'ovsdb-server.ctl')}`,
  ]);
  const dbConnection = `unix:${sock}`;
  await waitUntil(ovsdb, 'ovsdb-server to serve', async () => {
    await vsctl(dbConnection, env, ['--no-wait', 'init']);
    return true;
  });
  return dbConnection;
}

/** ovs-vswitchd in the network namespace `netns`, with the physical networks' bridges. */
async function startSwitch(
  layout: Layout,
  netns: string,
  dbConnection: string,
  env: NodeJS.ProcessEnv,
  start: Starter,
): Promise<void> {
  await execFileP('ip', ['netns', 'add', netns]);
  await execFileP('ip', ['netns', 'exec', netns, 'ip', 'link', 'set', 'lo', 'up']);
  const vswitchd = start('ovs-vswitchd', 'ip', [
    ...['netns', 'exec', netns],
    'ovs-vswitchd',
    dbConnection,
    `--unixctl=${join(layout.ovs, 'ovs-vswitchd.ctl')}`,
  ]);
  const bridges = Object.values(PHYSNET_BRIDGES).flatMap((bridge) => [
    ...['--', '--may-exist', 'add-br', bridge],
    ...['--', 'set', 'bridge', bridge, 'datapath_type=netdev'],
  ]);
  // Without --no-wait, ovs-vsctl returns once ovs-vswitchd has applied the change: the switch runs.
  await waitUntil(vswitchd, 'ovs-vswitchd to create the bridges', async () => {
    await vsctl(dbConnection, env, bridges);
    return true;
  });
}

/**
 * ovsdb-server, then ovs-vswitchd in the network namespace `netns` (userspace datapath: no kernel module) with the
 * physical networks' bridges, and a socat pair that carries the switch's OpenFlow connections from the namespace's
 * loopback to the agent's controller on the host's, at the same port.
 */
export async function startOvs(
  layout: Layout,
  netns: string,
  openflowPort: number,
  baseEnv: NodeJS.ProcessEnv,
): Promise<Ovs> {
  mkdirSync(layout.ovs, { recursive: true });
  const env = ovsEnv(layout, baseEnv);
  const processes: ServiceProcess[] = [];
  const start: Starter = (name, command, args) => {
    const p = new ServiceProcess(name, command, args, { logPath: join(layout.log, `${name}.log`), env });
    processes.push(p);
    return p;
  };
  try {
    const dbConnection = await startOvsdb(layout, env, start);
    await startSwitch(layout, netns, dbConnection, env, start);
    const relay = join(layout.run, 'openflow.sock');
    start('openflow-relay-host', 'socat', [`UNIX-LISTEN:${relay},fork`, `TCP:127.0.0.1:${openflowPort}`]);
    start('openflow-relay-netns', 'ip', [
      ...['netns', 'exec', netns],
      'socat',
      `TCP-LISTEN:${openflowPort},bind=127.0.0.1,reuseaddr,fork`,
      `UNIX-CONNECT:${relay}`,
    ]);
    return { processes, dbConnection, env };
  } catch (err) {
    await Promise.all(processes.map((p) => p.stop(2000)));
    throw err;
  }
}

export async function deleteNetns(netns: string): Promise<void> {
  try {
    await execFileP('ip', ['netns', 'delete', netns]);
  } catch {
    // Not there (never created, or deleted already).
  }
}

/** The network namespaces of stacks named with `prefix`: what `ip netns list` shows. */
export async function listNetns(prefix: string): Promise<string[]> {
  const { stdout } = await execFileP('ip', ['netns', 'list']);
  return stdout
    .split('\n')
    .map((line) => line.split(' ')[0] ?? '')
    .filter((name) => name.startsWith(prefix));
}
