// One running lab OpenStack: its processes in dependency order, from MariaDB to the neutron agent, and their
// teardown. initOpenStack (init.ts) runs one on the cached state directory itself to fill it; startOpenStack
// (index.ts) runs one on a copy of it.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { type Credentials, OpenStackClient, pollUntil } from './api.ts';
import { type ConfigFiles, type Ports, writeConfigs } from './config.ts';
import { deleteNetns, ovsEnv, startMariaDb, startOvs, startRabbit } from './infra.ts';
import { ADMIN, COMPUTE_HOST, type Layout } from './layout.ts';
import { killStack, type ServiceProcess, STACK_MARKER } from './process.ts';
import {
  type ApiName,
  apiReady,
  apiRoot,
  type DaemonName,
  rpcReady,
  type ServiceContext,
  startApi,
  startDaemon,
} from './services.ts';
import type { ApiRoots } from './resources.ts';
import { killOnExit } from './run.ts';

/** How long a service gets to exit after SIGTERM before SIGKILL (a busy neutron agent ignores SIGTERM). */
const GRACE_MS = 5000;
/** MariaDB gets longer: a clean shutdown leaves a data directory that can be copied and reused. */
const MARIADB_GRACE_MS = 60_000;

export interface StackInput {
  runId: string;
  layout: Layout;
  venv: string;
  ports: Ports;
  netns: string;
  log: (message: string) => void;
}

export class Stack {
  readonly input: StackInput;
  readonly ctx: ServiceContext;
  readonly config: ConfigFiles;
  readonly #infra: ServiceProcess[] = [];
  readonly #mariadb: ServiceProcess[] = [];
  readonly #services = new Map<string, ServiceProcess>();
  readonly startedAt = new Date();
  readonly #forget: () => void;

  constructor(input: StackInput) {
    this.input = input;
    const { layout, venv, ports } = input;
    for (const dir of [layout.etc, layout.log, layout.run, layout.ovs, layout.rabbit, layout.locks]) {
      mkdirSync(dir, { recursive: true });
    }
    this.config = writeConfigs({ layout, venv, ports, ovsdb: `unix:${join(layout.ovs, 'db.sock')}` });
    const env = ovsEnv(layout, {
      ...process.env,
      PATH: `${join(venv, 'bin')}:${process.env.PATH ?? '/usr/sbin:/usr/bin:/sbin:/bin'}`,
      // Eventlet's deprecation notice, printed by every service at import, says nothing about the lab.
      PYTHONWARNINGS: 'ignore',
      [STACK_MARKER]: input.runId,
    });
    this.ctx = { layout, venv, ports, config: this.config, env };
    this.#forget = killOnExit(input.runId, input.netns);
  }

  get authUrl(): string {
    return `${apiRoot(this.input.ports, 'keystone')}/v3`;
  }

  get adminCredentials(): Credentials {
    return { authUrl: this.authUrl, username: ADMIN.username, password: ADMIN.password, projectName: ADMIN.project };
  }

  adminClient(): OpenStackClient {
    return new OpenStackClient(this.adminCredentials);
  }

  apiRoots(): ApiRoots {
    const root = (name: ApiName): string => apiRoot(this.input.ports, name);
    return {
      identity: root('keystone'),
      compute: root('nova-api'),
      placement: root('placement'),
      image: root('glance'),
      network: root('neutron-api'),
      'load-balancer': root('octavia-api'),
    };
  }

  /** Every process of the stack that the stack started directly, with its name. */
  processes(): ServiceProcess[] {
    return [...this.#mariadb, ...this.#infra, ...this.#services.values()];
  }

  /** The services that have exited since they started, with their log tails: a stack that lost one is broken. */
  failures(): string[] {
    return this.processes()
      .filter((p) => !p.running)
      .map((p) => `${p.name} exited (status ${String(p.exitStatus)}); log ${p.logPath}:\n${p.tail()}`);
  }

  async startMariaDb(): Promise<void> {
    this.#mariadb.push(await startMariaDb(this.input.layout, this.input.ports.mariadb, this.ctx.env));
  }

  /** RabbitMQ and Open vSwitch, side by side. */
  async startMessagingAndSwitch(): Promise<void> {
    const { layout, ports, netns } = this.input;
    const started = Date.now();
    await Promise.all([
      startRabbit(layout, { amqp: ports.amqp, dist: ports.rabbitDist, epmd: ports.epmd }, this.ctx.env).then((p) =>
        this.#infra.push(p),
      ),
      startOvs(layout, netns, ports.openflow, this.ctx.env).then((ovs) => this.#infra.push(...ovs.processes)),
    ]);
    this.input.log(`RabbitMQ and Open vSwitch up in ${Date.now() - started} ms`);
  }

  async startApis(names: readonly ApiName[]): Promise<void> {
    const started = Date.now();
    const running = names.map((name) => {
      const service = startApi(this.ctx, name);
      this.#services.set(name, service);
      return [name, service] as const;
    });
    await Promise.all(running.map(([name, service]) => apiReady(this.ctx, name, service)));
    this.input.log(`${names.join(', ')} answering in ${Date.now() - started} ms`);
  }

  async startDaemons(names: readonly DaemonName[]): Promise<void> {
    const started = Date.now();
    const running = new Map(names.map((name) => [name, startDaemon(this.ctx, name)] as const));
    for (const [name, service] of running) this.#services.set(name, service);
    await rpcReady(this.ctx, running);
    const agent = running.get('neutron-openvswitch-agent');
    if (agent !== undefined) await this.agentReady(agent);
    this.input.log(`${names.join(', ')} serving in ${Date.now() - started} ms`);
  }

  /** The neutron agent is ready once neutron has a heartbeat from it sent after this stack started. */
  private async agentReady(agent: ServiceProcess): Promise<void> {
    const admin = this.adminClient();
    const startedAt = this.startedAt.getTime();
    await pollUntil(
      'the neutron Open vSwitch agent to report',
      async () => {
        if (!agent.running) throw new Error(`neutron-openvswitch-agent exited:\n${agent.tail()}`);
        const { agents } = await admin.get<{ agents: Array<{ alive: boolean; heartbeat_timestamp: string }> }>(
          'network',
          `/v2.0/agents?binary=neutron-openvswitch-agent&host=${COMPUTE_HOST}`,
        );
        return agents;
      },
      (agents) => agents.some((a) => a.alive && Date.parse(`${a.heartbeat_timestamp}Z`) >= startedAt - 1000),
      300_000,
      1000,
    );
  }

  /**
   * Stops every process: the OpenStack services first (SIGKILL after a short grace), then the switch and the
   * broker, MariaDB last and cleanly; then whatever they left (daemons that detached, privsep helpers) by the
   * stack's marker, and the network namespace.
   */
  async stop(): Promise<void> {
    await Promise.all([...this.#services.values()].map((p) => p.stop(GRACE_MS)));
    await Promise.all(this.#infra.map((p) => p.stop(GRACE_MS)));
    await Promise.all(this.#mariadb.map((p) => p.stop(MARIADB_GRACE_MS)));
    killStack(this.input.runId);
    await deleteNetns(this.input.netns);
    this.#forget();
  }
}
