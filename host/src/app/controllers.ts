// Which controllers run: those --controllers enables and the provider can serve, as upstream decides at start.
import type { Registry } from 'prom-client';
import type { Provider } from '../cloudprovider/index.ts';
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
}

function recorder(ctx: ControllerContext, component: string): EventRecorder {
  const r = new EventRecorder({
    sink: kubeEventSink(ctx.client),
    component,
    logger: ctx.logger.child({ component: 'events' }),
  });
  ctx.recorders.push(r);
  return r;
}

/** Builds the enabled controllers; logs (as upstream does) each one skipped because the provider lacks support. */
export function buildControllers(ctx: ControllerContext): RunningController[] {
  const { options, provider, logger } = ctx;
  const enabled = options.controllers;
  const hasInstances = provider.instancesV2() !== undefined || provider.instances() !== undefined;
  const controllers: RunningController[] = [];

  if (enabled.has('cloud-node')) {
    if (!hasInstances) logger.warn('skipping cloud-node: the provider implements neither InstancesV2 nor Instances');
    else {
      controllers.push(
        new CloudNodeController({
          client: ctx.client,
          nodes: ctx.informers.nodes,
          provider,
          recorder: recorder(ctx, 'cloud-node-controller'),
          logger,
          registry: ctx.registry,
          workers: options.flags['concurrent-node-syncs'],
          statusUpdateFrequencyMs: options.flags['node-status-update-frequency'],
        }),
      );
    }
  }
  if (enabled.has('cloud-node-lifecycle')) {
    if (!hasInstances)
      logger.warn('skipping cloud-node-lifecycle: the provider implements neither InstancesV2 nor Instances');
    else {
      controllers.push(
        new CloudNodeLifecycleController({
          client: ctx.client,
          nodes: ctx.informers.nodes,
          provider,
          recorder: recorder(ctx, 'cloud-node-lifecycle-controller'),
          logger,
          monitorPeriodMs: options.flags['node-monitor-period'],
        }),
      );
    }
  }
  for (const name of ['service', 'route'] as const) {
    if (enabled.has(name)) logger.warn(`the ${name} controller is not available in this build yet; not starting it`);
  }
  return controllers;
}
