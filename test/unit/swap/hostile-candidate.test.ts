// Hot swap with the real loader and raw hostile modules: a candidate that would abort the process (a 10M-entry table)
// or whose ccm_initialize grows its table by 10M is refused, and the plugin already serving keeps serving.
import { describe, expect, it } from 'vitest';
import { silentLogger } from '../../../host/src/log/logger.ts';
import { wasmCandidateLoader } from '../../../host/src/plugin/swap/candidate.ts';
import { HotSwapper } from '../../../host/src/plugin/swap/hot-swapper.ts';
import { createSwapMetrics } from '../../../host/src/plugin/swap/swap-metrics.ts';
import { Registry } from 'prom-client';
import { hostileModule } from '../../../lab/plugins/index.ts';
import { eventLog, ManualSource, providerConfig } from './fakes.ts';

describe('HotSwapper with a hostile candidate', () => {
  it.each([
    [
      'a 10M-entry table',
      hostileModule({ version: '2.0.0', zones: true, body: '(table 10000000 funcref)' }),
      /^cannot load plugin hostile: the module's tables need 10000000 entries at start, above the cap of 10000 table entries$/,
    ],
    [
      'a ccm_initialize that grows its table by 10M',
      hostileModule({
        version: '2.0.0',
        zones: true,
        features: ['reference-types'],
        body: '(table $t 1 funcref)',
        initialize: `(if (i32.eq (table.grow $t (ref.null func) (i32.const 10000000)) (i32.const -1)) (then unreachable))
          (call $ok)`,
      }),
      /^cannot load plugin hostile: ccm_initialize failed: .*the plugin trapped in ccm_initialize: trap: unreachable$/,
    ],
  ])(
    'refuses %s and keeps the previous provider serving',
    async (_what, candidate, reason) => {
      const config = providerConfig({ name: 'hostile', capabilities: ['zones'] });
      const source = new ManualSource(hostileModule({ zones: true }));
      const swapper = await HotSwapper.start({
        config,
        source,
        load: wasmCandidateLoader(config, {
          clusterName: 'kubernetes',
          defaultPoolSize: 1,
          logger: silentLogger,
          registry: undefined,
        }),
        events: eventLog(),
        metrics: createSwapMetrics(new Registry()),
        logger: silentLogger,
      });
      try {
        expect(swapper.status().version).toBe('1.0.0');
        source.push(candidate);
        await swapper.idle();
        expect(swapper.status().lastRejected?.reason).toMatch(reason);
        expect(swapper.status().version).toBe('1.0.0');
        expect(await swapper.provider.zones()?.getZone()).toEqual({
          failureDomain: 'hostile-zone',
          region: 'hostile-region',
        });
      } finally {
        await swapper.stop();
      }
    },
    30_000,
  );
});
