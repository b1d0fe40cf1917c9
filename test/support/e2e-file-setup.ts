// Runs before each end-to-end file. Files share one control plane one after another; a file starts from a cluster
// in which no Service is balanced, whatever the files before it left (lab/controlplane/leftovers.ts says why).
import { beforeAll, inject } from 'vitest';
import { adminKubeConfig, releaseLeftoverServices } from '../../lab/controlplane/index.ts';

beforeAll(async () => {
  const released = await releaseLeftoverServices(adminKubeConfig(inject('controlPlane')));
  if (released.length > 0)
    console.log(`released ${released.length} Services earlier files left: ${released.join(', ')}`);
}, 60_000);
