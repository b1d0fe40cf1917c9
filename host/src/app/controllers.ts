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
import type { ControllerName } from '../options/controllers.ts';
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
  loadBalancing?: { balancer: LoadBalancer; classes: ReadonlySet<string> };
}

/** An event recorder writing through `client`, with `component` as the events' source. */
export function eventRecorder(client: KubeClient, logger: Logger, component: string): EventRecorder {
  return new EventRecorder({ sink: kubeEventSink(client), component, logger: logger.child({ component: 'events' }) });
}

function recorder(ctx: ControllerContext, client: KubeClient, component: string): EventRecorder {
  const r = eventRecorder(client, ctx.logger, component);
  ctx.recorders.push(r);
  return r;
}

/**
 * Builds the enabled controllers; logs (as upstream does) each one skipped because the provider lacks support. Each
 * controller gets a client of its own (KubeClient.forController: its own token bucket, the shared connections), named
 * as upstream names them, and writes its events through it, as upstream's controllers do.
 */
/** A controller's own client: its ServiceAccount's with --use-service-account-credentials, else the CCM's own. */
function controllerClient(ctx: ControllerContext, name: string): KubeClient {
  return ctx.options.flags['use-service-account-credentials']
    ? ctx.client.forServiceAccount(name)
    : ctx.client.forController(name);
}

export function buildControllers(ctx: ControllerContext): RunningController[] {
  const { options, provider, logger } = ctx;
  const enabled = options.controllers;
  const hasInstances = provider.instancesV2() !== undefined || provider.instances() !== undefined;
  const controllers: RunningController[] = [];

  if (enabled.has('cloud-node')) {
    if (!hasInstances) logger.warn('skipping cloud-node: the provider implements neither InstancesV2 nor Instances');
    else {
      const client = controllerClient(ctx, 'node-controller');
      controllers.push(
        new CloudNodeController({
          client,
          nodes: ctx.informers.nodes,
          provider,
          recorder: recorder(ctx, client, 'cloud-node-controller'),
          logger,
          registry: ctx.registry,
          workers: options.flags['concurrent-node-syncs'],
          statusUpdateWorkers: options.flags['concurrent-node-status-updates'],
          statusUpdateFrequencyMs: options.flags['node-status-update-frequency'],
        }),
      );
    }
  }
  if (enabled.has('cloud-node-lifecycle')) {
    if (!hasInstances)
      logger.warn('skipping cloud-node-lifecycle: the provider implements neither InstancesV2 nor Instances');
    else {
      const client = controllerClient(ctx, 'node-controller');
      controllers.push(
        new CloudNodeLifecycleController({
          client,
          nodes: ctx.informers.nodes,
          provider,
          recorder: recorder(ctx, client, 'cloud-node-lifecycle-controller'),
          logger,
          monitorPeriodMs: options.flags['node-monitor-period'],
        }),
      );
    }
  }
  if (enabled.has('service')) {
    const balancer = ctx.loadBalancing?.balancer ?? provider.loadBalancer();
    if (!balancer) logger.warn('skipping service: the provider does not support load balancers');
    else {
      const client = controllerClient(ctx, 'service-controller');
      controllers.push(
        new ServiceController({
          client,
          services: ctx.informers.services,
          nodes: ctx.informers.nodes,
          balancer,
          clusterName: options.flags['cluster-name'],
          recorder: recorder(ctx, client, 'service-controller'),
          logger,
          registry: ctx.registry,
          workers: options.flags['concurrent-service-syncs'],
          classes: ctx.loadBalancing?.classes,
          leaseFresh: ctx.leaseFresh,
        }),
      );
    }
  }
  const routes = routeControllerWanted(options, provider, logger);
  if (routes) {
    const client = controllerClient(ctx, 'route-controller');
    controllers.push(
      new RouteController({
        client,
        nodes: ctx.informers.nodes,
        routes,
        clusterName: options.flags['cluster-name'],
        clusterCIDRs: options.clusterCIDRs,
        recorder: recorder(ctx, client, 'route-controller'),
        logger,
        periodMs: options.flags['route-reconciliation-period'],
        leaseFresh: ctx.leaseFresh,
        registry: ctx.registry,
        watchBased: options.featureGates.CloudControllerManagerWatchBasedRoutesReconciliation,
      }),
    );
  }
  return controllers;
}

export class ControllerConfigError extends Error {
  override name = 'ControllerConfigError';
}

/**
 * The route controller runs when enabled, --configure-cloud-routes is on and the provider has Routes; it then
 * needs --cluster-cidr (upstream: a fatal start-up error). Checked before anything starts.
 */
export function routeControllerWanted(options: CCMOptions, provider: Provider, logger: Logger): Routes | undefined {
  if (!options.controllers.has('route')) return undefined;
  if (!options.flags['configure-cloud-routes']) {
    logger.info('will not configure cloud provider routes: --configure-cloud-routes is false');
    return undefined;
  }
  const routes = provider.routes();
  if (!routes) {
    logger.warn('--configure-cloud-routes is set, but the provider does not support routes; not configuring routes');
    return undefined;
  }
  if (options.clusterCIDRs.length === 0) {
    throw new ControllerConfigError(
      '--cluster-cidr: required by the route controller (or pass --configure-cloud-routes=false, or --controllers=*,-route)',
    );
  }
  return routes;
}
