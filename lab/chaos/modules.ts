// The plugin modules a chaos run swaps through its ConfigMap: devcloud v1 (as `npm run build:plugins` built it) and
// v2, a module failing its load checks (ABI 2), and two that pass them and then misbehave (one hangs in listRoutes,
// one traps in getLoadBalancer). Built once and cached beside the hot-swap tests' builds.
import { join } from 'node:path';
import { buildDevcloudVariant } from '../../plugins/devcloud/build-variant.ts';
import { hotswapModules } from '../plugins/index.ts';

export interface ChaosModules {
  v1: Uint8Array;
  v2: Uint8Array;
  abiV2: Uint8Array;
  hang: Uint8Array;
  trap: Uint8Array;
}

const BUILD = join(import.meta.dirname, '..', 'plugins', 'hotswap', 'build');

export async function chaosModules(): Promise<ChaosModules> {
  const { v1, v2, abiV2 } = await hotswapModules();
  const variant = async (fault: 'hang' | 'trap') =>
    (
      await buildDevcloudVariant(3, {
        fault,
        optimize: false,
        outFile: join(BUILD, `devcloud-${fault}.wasm`),
        cacheDir: join(BUILD, 'cache'),
      })
    ).wasm;
  // One compilation at a time (the compiler keeps global state).
  const hang = await variant('hang');
  const trap = await variant('trap');
  return { v1, v2, abiV2, hang, trap };
}
