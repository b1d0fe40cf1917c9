// Which controllers run: those --controllers enables and the provider can serve, as upstream decides at start.
import type { Registry } from 'prom-client';
import type { LoadBalancer, Provider, Routes } from '../cloudprovider/index.ts';
import { RouteController } from '../controllers/route/route-controller.ts';
import { ServiceController } from '../controllers/service/service-controller.ts';
import { CloudNodeController } from '../controllers/node/node-controller.ts';
import { CloudNodeLifecycleController } from '../controllers/nodelifecycle/lifecycle-controller.ts';
import type { KubeClient } from '../kube/client/client.ts';
import { EventRecorder, kubeEventSink } from '../kube/events/recorder.ts';
import type { Logger } from '../log/logger.ts';
import type { CCMOptions } from '../options/ccm-options.ts';
import { CONTROLLER_NAMES, type ControllerName } from '../options/controllers.ts';
import type { SharedInformers } from './informers.ts';

export interface RunningController {
  name: ControllerName;
  run(signal: AbortSignal): Promise<void>;
  /** Throws with the reason when unhealthy (/healthz/<name>). */
  healthy(): void;
}

export interface ControllerContext {
  options: CCMOptions;
  client: KubeClient;
  informers: SharedInformers;
  provider: Provider;
  logger: Logger;
  registry: Registry;
  /** False once the lease may be stale: controllers must not start cloud mutations then. */
  leaseFresh: () => boolean;
  recorders: EventRecorder[];
  /**
   * With loadBalancerClasses configured (--plugin-config): one balancer routing each Service to its class's
   * provider, and the classes the service controller serves besides classless Services.
   */
  loadBalancing?: { balancer: LoadBalancer; classes: ReadonlySet<string>; classless: boolean };
}

/** An event recorder writing through `client`, with `component` as the events' source. */
export function eventRecorder(client: KubeClient, logger: Logger, component: string): EventRecorder {
  return new EventRecorder({ sink: kubeEventSink(client), component, logger });
}

function recorder(ctx: ControllerContext, client: KubeClient, component: string): EventRecorder {
  const r = eventRecorder(client, ctx.logger, component);
  ctx.recorders.push(r);
  return r;
}

/** A controller's own client: its ServiceAccount's with --use-service-account-credentials, else the CCM's own. */
function controllerClient(ctx: ControllerContext, name: string): KubeClient {
  // A controller that may no longer lead sends no retry (upstream's process exits when it loses its lease).
  const options = { mayRetry: ctx.leaseFresh };
  return ctx.options.flags['use-service-account-credentials']
    ? ctx.client.forServiceAccount(name, 'kube-system', options)
    : ctx.client.forController(name, options);
}

/** Why a controller does not run: the line logged, at `level`, as upstream logs it. */
interface NotStarted {
  notStarted: string;
  level: 'info' | 'warn';
}

/** What a controller's start function decides: the controller, or why it does not run. */
type ControllerStart = { controller: RunningController } | NotStarted;

/**
 * Each controller gets a client of its own (KubeClient.forController: its own token bucket, the shared connections),
 * named as upstream names it (its ControllerInitContext.ClientName), and writes its events through it, as upstream's
 * controllers do. `start` builds the controller on the client it is handed, made only once it is known to run.
 */
interface ControllerInit {
  clientName: string;
  start(ctx: ControllerContext, client: () => KubeClient): ControllerStart;
}

const NO_INSTANCES = 'the provider implements neither InstancesV2 nor Instances';
const hasInstances = (provider: Provider): boolean =>
  provider.instancesV2() !== undefined || provider.instances() !== undefined;

function startCloudNode(ctx: ControllerContext, ownClient: () => KubeClient): ControllerStart {
  if (!hasInstances(ctx.provider)) return { notStarted: `skipping cloud-node: ${NO_INSTANCES}`, level: 'warn' };
  const { options, provider, logger } = ctx;
  const client = ownClient();
  const controller = new CloudNodeController({
    client,
    nodes: ctx.informers.nodes,
    provider,
    recorder: recorder(ctx, client, 'cloud-node-controller'),
    logger,
    registry: ctx.registry,
    workers: options.flags['concurrent-node-syncs'],
    statusUpdateWorkers: options.flags['concurrent-node-status-updates'],
    statusUpdateFrequencyMs: options.flags['node-status-update-frequency'],
  });
  return { controller };
}

function startCloudNodeLifecycle(ctx: ControllerContext, ownClient: () => KubeClient): ControllerStart {
  if (!hasInstances(ctx.provider)) {
    return { notStarted: `skipping cloud-node-lifecycle: ${NO_INSTANCES}`, level: 'warn' };
  }
  const client = ownClient();
  const controller = new CloudNodeLifecycleController({
    client,
    nodes: ctx.informers.nodes,
    provider: ctx.provider,
    recorder: recorder(ctx, client, 'cloud-node-lifecycle-controller'),
    logger: ctx.logger,
    monitorPeriodMs: ctx.options.flags['node-monitor-period'],
  });
  return { controller };
}

function startService(ctx: ControllerContext, ownClient: () => KubeClient): ControllerStart {
  const balancer = ctx.loadBalancing?.balancer ?? ctx.provider.loadBalancer();
  if (!balancer) return { notStarted: 'skipping service: the provider does not support load balancers', level: 'warn' };
  const { options, logger } = ctx;
  const client = ownClient();
  const controller = new ServiceController({
    client,
    services: ctx.informers.services,
    nodes: ctx.informers.nodes,
    balancer,
    clusterName: options.flags['cluster-name'],
    recorder: recorder(ctx, client, 'service-controller'),
    logger,
    registry: ctx.registry,
    workers: options.flags['concurrent-service-syncs'],
    served: ctx.loadBalancing,
    leaseFresh: ctx.leaseFresh,
  });
  return { controller };
}

function startRoute(ctx: ControllerContext, ownClient: () => KubeClient): ControllerStart {
  const { options, logger } = ctx;
  const decision = routeDecision(options, ctx.provider);
  if (!('routes' in decision)) return decision;
  const client = ownClient();
  const controller = new RouteController({
    client,
    nodes: ctx.informers.nodes,
    routes: decision.routes,
    clusterName: options.flags['cluster-name'],
    clusterCIDRs: options.clusterCIDRs,
    recorder: recorder(ctx, client, 'route-controller'),
    logger,
    periodMs: options.flags['route-reconciliation-period'],
    leaseFresh: ctx.leaseFresh,
    registry: ctx.registry,
    watchBased: options.featureGates.CloudControllerManagerWatchBasedRoutesReconciliation,
  });
  return { controller };
}

/**
 * Every controller the CCM can run, by name (upstream's DefaultInitFuncConstructors). A new controller is an entry
 * here and its name in CONTROLLER_NAMES (options/controllers.ts: --controllers, and the order they are built in);
 * the Record type refuses a name without an entry.
 */
const CONTROLLER_INITS: Readonly<Record<ControllerName, ControllerInit>> = {
  'cloud-node': { clientName: 'node-controller', start: startCloudNode },
  'cloud-node-lifecycle': { clientName: 'node-controller', start: startCloudNodeLifecycle },
  service: { clientName: 'service-controller', start: startService },
  route: { clientName: 'route-controller', start: startRoute },
};

/** Builds the enabled controllers; logs (as upstream does) each one that does not run, and why. */
export function buildControllers(ctx: ControllerContext): RunningController[] {
  const controllers: RunningController[] = [];
  for (const name of CONTROLLER_NAMES) {
    if (!ctx.options.controllers.has(name)) continue;
    const init = CONTROLLER_INITS[name];
    const started = init.start(ctx, () => controllerClient(ctx, init.clientName));
    if ('controller' in started) controllers.push(started.controller);
    else ctx.logger[started.level](started.notStarted);
  }
  return controllers;
}

class ControllerConfigError extends Error {
  override name = 'ControllerConfigError';
}

/**
 * The route controller runs when --configure-cloud-routes is on and the provider has Routes; it then needs
 * --cluster-cidr (upstream: a fatal start-up error).
 */
function routeDecision(options: CCMOptions, provider: Provider): { routes: Routes } | NotStarted {
  if (!options.flags['configure-cloud-routes']) {
    return { notStarted: 'will not configure cloud provider routes: --configure-cloud-routes is false', level: 'info' };
  }
  const routes = provider.routes();
  if (!routes) {
    return {
      notStarted: '--configure-cloud-routes is set, but the provider does not support routes; not configuring routes',
      level: 'warn',
    };
  }
  if (options.clusterCIDRs.length === 0) {
    throw new ControllerConfigError(
      '--cluster-cidr: required by the route controller (or pass --configure-cloud-routes=false, or --controllers=*,-route)',
    );
  }
  return { routes };
}

/** The route controller's Routes when it is enabled and would run; checked before anything starts. */
export function routeControllerWanted(options: CCMOptions, provider: Provider, logger: Logger): Routes | undefined {
  if (!options.controllers.has('route')) return undefined;
  const decision = routeDecision(options, provider);
  if ('routes' in decision) return decision.routes;
  logger[decision.level](decision.notStarted);
  return undefined;
}
