// wasm_ccm_event_loop_stall_seconds: a blocked event loop shows as the longest stall of the last minute, scrape after
// scrape (a scrape does not reset it, as prom-client's nodejs_eventloop_lag_max_seconds is reset).
import { Registry } from 'prom-client';
import { afterAll, describe, expect, it } from 'vitest';
import { eventLoopStall } from '../../../host/src/metrics/event-loop-stall.ts';

const registry = new Registry();
const monitor = eventLoopStall(registry);
afterAll(() => monitor.stop());

async function gaugeSeconds(): Promise<number> {
  const metric = await registry.getSingleMetric('wasm_ccm_event_loop_stall_seconds')?.get();
  return metric?.values[0]?.value ?? Number.NaN;
}

describe('event loop stall gauge', () => {
  it('reports a 300 ms block as the longest stall, and keeps it across scrapes', async () => {
    // Let the monitor's sampling timer run a few times first.
    await new Promise((r) => setTimeout(r, 100));
    const blockedAt = performance.now();
    while (performance.now() - blockedAt < 300) {
      // the event loop is blocked: no timer can run
    }
    await new Promise((r) => setTimeout(r, 50));
    expect(monitor.longestMs()).toBeGreaterThanOrEqual(250);
    expect(await gaugeSeconds()).toBeGreaterThanOrEqual(0.25);
    expect(await gaugeSeconds()).toBeGreaterThanOrEqual(0.25);
    expect(eventLoopStall(registry)).toBe(monitor);
    const text = await registry.getSingleMetricAsString('wasm_ccm_event_loop_stall_seconds');
    expect(text).toContain('# HELP wasm_ccm_event_loop_stall_seconds [ALPHA] ');
  });
});
