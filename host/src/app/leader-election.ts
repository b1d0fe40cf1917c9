// Start-up phase "leader election": campaign for the Lease; while leading, run the controllers; losing the Lease
// shuts the CCM down with exit code 1, as upstream's CCM exits.
import { KubeClient } from '../kube/client/client.ts';
import { LeaderElector } from '../kube/leaderelection/elector.ts';
import { kubeLeaseLock } from '../kube/leaderelection/lease-lock.ts';
import type { Logger } from '../log/logger.ts';
import { eventLoopStall } from '../metrics/event-loop-delay.ts';
import type { CCMOptions } from '../options/ccm-options.ts';
import type { CCMClients } from './clients.ts';
import type { RunningCCM } from './running-ccm.ts';

export function startLeaderElection(
  options: CCMOptions,
  { client, registry }: CCMClients,
  ccm: RunningCCM,
  identity: string,
  logger: Logger,
  stopping: AbortSignal,
): LeaderElector {
  const flags = options.flags;
  // Its own client and rate limiter, as upstream builds one for leader election: renewals queued behind a burst
  // of controller requests in a shared token bucket miss the renew deadline and cost the lease (and the process).
  const leaseClient = new KubeClient(client.credentials, {
    qps: flags['kube-api-qps'],
    burst: flags['kube-api-burst'],
    registry,
    userAgent: 'wasm-ccm/leader-election',
    logger,
  });
  // A renewal that comes late, or not at all, says how long the event loop stalled meanwhile.
  const stalls = eventLoopStall(registry);
  const elector = new LeaderElector({
    lock: kubeLeaseLock(leaseClient, flags['leader-elect-resource-namespace'], flags['leader-elect-resource-name']),
    identity,
    leaseDurationMs: flags['leader-elect-lease-duration'],
    renewDeadlineMs: flags['leader-elect-renew-deadline'],
    retryPeriodMs: flags['leader-elect-retry-period'],
    releaseOnCancel: true,
    name: flags['leader-elect-resource-name'],
    registry,
    eventLoopStallMs: () => stalls.longestMs(),
    logger: logger.child({ component: 'leader-election' }),
    callbacks: {
      onStartedLeading: (signal) => {
        logger.info('started leading', { identity });
        return ccm.lead(AbortSignal.any([signal, stopping]));
      },
      onStoppedLeading: () => {
        if (ccm.shuttingDown) return;
        logger.error('leaderelection lost', { identity });
        ccm.lostLease();
      },
      onNewLeader: (holder) => {
        if (holder !== identity) logger.info('new leader elected', { leader: holder });
      },
    },
  });
  ccm.elector = elector;
  void elector.run();
  return elector;
}
