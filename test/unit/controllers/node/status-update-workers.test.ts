// --concurrent-node-status-updates sets how many nodes the periodic refresh asks the cloud about at once; 0 falls
// back to --concurrent-node-syncs, as upstream's flag does.
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import type { Provider } from '../../../../host/src/cloudprovider/index.ts';
import {
  CloudNodeController,
  type CloudNodeControllerOptions,
} from '../../../../host/src/controllers/node/node-controller.ts';
import { silentLogger } from '../../../../host/src/log/logger.ts';

/** The most instanceMetadata calls in flight at once while refreshing `count` initialized nodes. */
async function refreshConcurrency(workers: number, statusUpdateWorkers: number, count = 12): Promise<number> {
  let inFlight = 0;
  let most = 0;
  const provider = {
    instancesV2: () => ({
      instanceMetadata: async () => {
        most = Math.max(most, ++inFlight);
        await new Promise((r) => setTimeout(r, 5));
        inFlight--;
        throw new Error('refresh fails after counting, so the test needs no apiserver');
      },
    }),
  } as unknown as Provider;
  const nodes = Array.from({ length: count }, (_, i) => ({ metadata: { name: `n${i}` }, spec: {}, status: {} }));
  const controller = new CloudNodeController({
    client: {} as CloudNodeControllerOptions['client'],
    nodes: {
      cache: { list: () => nodes },
      addEventHandler: () => undefined,
    } as unknown as CloudNodeControllerOptions['nodes'],
    provider,
    recorder: {} as CloudNodeControllerOptions['recorder'],
    logger: silentLogger,
    registry: new Registry(),
    workers,
    statusUpdateWorkers,
    statusUpdateFrequencyMs: 300_000,
  });
  await controller.updateNodeStatus();
  return most;
}

describe('--concurrent-node-status-updates', () => {
  it('bounds the periodic refresh, and 0 means --concurrent-node-syncs', async () => {
    expect(await refreshConcurrency(1, 4)).toBe(4);
    expect(await refreshConcurrency(3, 0)).toBe(3);
  });
});
