// The embeddable devcloud: tests, benchmarks and the demo start one in-process with startDevcloud().
import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { AddressInfo } from 'node:net';
import { buildApp } from './app.ts';
import { Counters, type OpCounter } from './counters.ts';
import { FaultInjector } from './faults.ts';
import type { Knobs, KnobsPatch } from './knobs.ts';
import { Cloud, type CloudInventory } from './model/cloud.ts';
import type { InstancePatch, InstanceSpec } from './model/instances.ts';
import type { LoadBalancerCreate } from './model/load-balancers.ts';
import type { RouteInput } from './model/routes.ts';
import type { Instance, LoadBalancer, Route, Zone } from './model/types.ts';
import { DEFAULT_ZONES } from './model/zones.ts';
import { type Mutation, MutationLog } from './mutations.ts';
import { loadState, StateWriter } from './persistence.ts';

export type { FailRule, Knobs, KnobsPatch } from './knobs.ts';
export type { CloudInventory, LoadBalancerInventory, PoolUsage } from './model/cloud.ts';
export type { InstancePatch, InstanceSpec } from './model/instances.ts';
export type { LoadBalancerCreate, LoadBalancerInput } from './model/load-balancers.ts';
export type { RouteInput } from './model/routes.ts';
export type * from './model/types.ts';
export type { OpCounter } from './counters.ts';
export { CLOUD_OPS, type CloudOp } from './ops.ts';
export { ApiError, type ErrorBody, type ErrorCode } from './errors.ts';
export { DEFAULT_ZONES } from './model/zones.ts';
// The seeded generator devcloud's faults draw from, for drivers that replay the same sequence.
export { mulberry32 } from './faults.ts';
export { CALLER_HEADER, type Mutation } from './mutations.ts';

export const DEFAULT_VIP_POOL: readonly string[] = ['198.18.0.0/16'];
export const DEFAULT_INTERNAL_CIDR = '10.0.0.0/16';
export const DEFAULT_PERSIST_DELAY_MS = 100;

export interface DevcloudOptions {
  /** Default 127.0.0.1. */
  host?: string;
  /** Default 0: a free port. */
  port?: number;
  /** Cloud API token. Default: random (read it from the handle). */
  token?: string;
  /** Token for /v1/admin (also valid on the cloud API). Default: the cloud token. */
  adminToken?: string;
  /** Where state is persisted. Default: none (memory only). */
  stateFile?: string;
  /** Longest a change waits before it is written. Default 100. */
  persistDelayMs?: number;
  /** IPv4 CIDRs LB VIPs come from. Default 198.18.0.0/16. */
  vipPool?: readonly string[];
  /** IPv4 CIDR generated instance InternalIPs come from. Default 10.0.0.0/16. */
  internalCidr?: string;
  /** Default DEFAULT_ZONES. */
  zones?: readonly Zone[];
  /** Initial fault knobs. */
  knobs?: KnobsPatch;
  /** Fastify request logging to stdout. Default false. */
  logger?: boolean;
}

export interface Inventory extends CloudInventory {
  counters: Record<string, OpCounter>;
  knobs: Knobs;
}

export interface Devcloud {
  /** "http://127.0.0.1:<port>" — the API lives under `${url}/v1`. */
  readonly url: string;
  readonly port: number;
  readonly token: string;
  readonly adminToken: string;
  /** The Fastify instance, for `inject()`. */
  readonly app: FastifyInstance;
  /** Merges knob changes (validated; throws on a bad value) and returns the knobs now in force. */
  setKnobs(patch: KnobsPatch): Knobs;
  knobs(): Knobs;
  resetKnobs(): Knobs;
  inventory(): Inventory;
  resetCounters(): void;
  /** Every successful cloud write since the start (or resetMutations), with its caller (mutations.ts). */
  mutations(): Mutation[];
  resetMutations(): void;
  /** Seed helpers: direct, synchronous, never delayed or faulted, not counted. Return copies. */
  addInstance(spec: InstanceSpec): Instance;
  patchInstance(id: string, patch: InstancePatch): Instance;
  stopInstance(id: string): Instance;
  startInstance(id: string): Instance;
  terminateInstance(id: string): Instance;
  deleteInstance(id: string): void;
  /** Seeds a load balancer as POST /v1/load-balancers would create it (a stale one a CCM should find, say). */
  addLoadBalancer(input: LoadBalancerCreate): LoadBalancer;
  /** Seeds a route as POST /v1/routes would create it (a stray or non-canonical one a route controller meets). */
  addRoute(input: RouteInput): Route;
  /** Writes pending state now (no-op without a state file). */
  flush(): Promise<void>;
  /** Stops listening, waits for in-flight requests, writes the state file. Idempotent. */
  stop(): Promise<void>;
}

export async function startDevcloud(options: DevcloudOptions = {}): Promise<Devcloud> {
  const token = options.token ?? randomBytes(16).toString('hex');
  const adminToken = options.adminToken ?? token;
  if (token === '' || adminToken === '') throw new Error('devcloud: tokens must not be empty');
  const cloud = new Cloud({
    zones: options.zones ?? DEFAULT_ZONES,
    vipPool: options.vipPool ?? DEFAULT_VIP_POOL,
    internalCidr: options.internalCidr ?? DEFAULT_INTERNAL_CIDR,
  });
  const faults = new FaultInjector(options.knobs);
  const counters = new Counters();
  const mutations = new MutationLog();

  let writer: StateWriter | null = null;
  if (options.stateFile) {
    const saved = await loadState(options.stateFile);
    if (saved) cloud.restore(saved);
    const w = new StateWriter(options.stateFile, options.persistDelayMs ?? DEFAULT_PERSIST_DELAY_MS, () =>
      cloud.snapshot(),
    );
    cloud.onChange = () => w.markDirty();
    writer = w;
  }
  const flush = async () => writer?.flush();

  const app = buildApp({
    cloud,
    faults,
    counters,
    mutations,
    token,
    adminToken,
    flush,
    logger: options.logger ?? false,
  });
  await app.listen({ host: options.host ?? '127.0.0.1', port: options.port ?? 0 });
  const port = (app.server.address() as AddressInfo).port;
  const host = options.host ?? '127.0.0.1';
  const urlHost = host.includes(':') ? `[${host}]` : host;

  let stopping: Promise<void> | null = null;
  const copy = <T>(v: T): T => structuredClone(v);
  return {
    url: `http://${urlHost}:${port}`,
    port,
    token,
    adminToken,
    app,
    setKnobs: (patch) => faults.set(patch),
    knobs: () => faults.get(),
    resetKnobs: () => faults.reset(),
    inventory: () => ({ ...copy(cloud.inventory()), counters: counters.snapshot(), knobs: faults.get() }),
    resetCounters: () => counters.reset(),
    mutations: () => mutations.list(),
    resetMutations: () => mutations.reset(),
    addInstance: (spec) => copy(cloud.instances.create(spec)),
    patchInstance: (id, patch) => copy(cloud.instances.patch(id, patch)),
    stopInstance: (id) => copy(cloud.instances.act(id, 'stop')),
    startInstance: (id) => copy(cloud.instances.act(id, 'start')),
    terminateInstance: (id) => copy(cloud.instances.act(id, 'terminate')),
    deleteInstance: (id) => {
      cloud.deleteInstance(id);
    },
    addLoadBalancer: (input) => copy(cloud.loadBalancers.create(input)),
    addRoute: (input) => copy(cloud.routes.create(input)),
    flush,
    stop: () => {
      stopping ??= app.close().then(flush);
      return stopping;
    },
  };
}
