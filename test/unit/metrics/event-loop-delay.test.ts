// The event-loop delay monitor: wasm_ccm_event_loop_stall_seconds shows a blocked event loop as the longest stall of
// the last minute, scrape after scrape (a scrape does not reset it), and prom-client's nodejs_eventloop_lag_*_seconds
// families, fed by the same sampling timer, report the delays since the previous scrape beyond the sampling interval.
import { Registry, collectDefaultMetrics } from 'prom-client';
import { afterAll, describe, expect, it } from 'vitest';
import { SAMPLE_MS, eventLoopStall, nodeRuntimeMetrics } from '../../../host/src/metrics/event-loop-delay.ts';

const registry = new Registry();
const monitor = nodeRuntimeMetrics(registry);
afterAll(() => monitor.stop());

async function gaugeSeconds(name: string): Promise<number> {
  const metric = await registry.getSingleMetric(name)?.get();
  return metric?.values[0]?.value ?? Number.NaN;
}

/** Every lag gauge's value, as a scrape of the registry reads them (the first one's collect sets them all). */
async function scrapeLag(): Promise<Record<string, number>> {
  const text = await registry.metrics();
  const values: Record<string, number> = {};
  for (const [, name, value] of text.matchAll(/^(nodejs_eventloop_lag_\w+_seconds) (\S+)$/gm)) {
    values[name!] = Number(value);
  }
  return values;
}

/**
 * Scrapes every 300 ms (for up to 5 s) until a scrape's max lag reaches `atLeast`: a block is handed over once its
 * second is rolled. The largest max seen, and the last scrape.
 */
async function scrapeUntilMaxLag(atLeast: number): Promise<{ maxSeen: number; last: Record<string, number> }> {
  let maxSeen = 0;
  let last: Record<string, number> = {};
  for (const until = performance.now() + 5_000; maxSeen < atLeast && performance.now() < until;) {
    await sleep(300);
    last = await scrapeLag();
    maxSeen = Math.max(maxSeen, last['nodejs_eventloop_lag_max_seconds'] ?? 0);
  }
  return { maxSeen, last };
}

function block(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    // the event loop is blocked: no timer can run
  }
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

describe('event loop delay monitor', () => {
  it('reports a 400 ms block as the longest stall, and keeps it across scrapes', async () => {
    await sleep(2 * SAMPLE_MS);
    block(400);
    await sleep(50);
    expect(monitor.longestMs()).toBeGreaterThanOrEqual(300 - 5);
    expect(await gaugeSeconds('wasm_ccm_event_loop_stall_seconds')).toBeGreaterThanOrEqual(0.295);
    expect(await gaugeSeconds('wasm_ccm_event_loop_stall_seconds')).toBeGreaterThanOrEqual(0.295);
    expect(eventLoopStall(registry)).toBe(monitor);
    const text = await registry.getSingleMetricAsString('wasm_ccm_event_loop_stall_seconds');
    expect(text).toContain('# HELP wasm_ccm_event_loop_stall_seconds [ALPHA] ');
  });

  it('reports the lag of the whole seconds since the last scrape, without the sampling interval', async () => {
    await scrapeLag();
    block(600);
    const blocked = await scrapeUntilMaxLag(0.495);
    expect(blocked.maxSeen).toBeGreaterThanOrEqual(0.495);
    expect(blocked.maxSeen).toBeLessThan(1.5);
    // Later scrapes see only what came after: a 150 ms block comes back as 50-150 ms late (more on a loaded machine),
    // never as the earlier block's half second.
    block(150);
    const later = await scrapeUntilMaxLag(0.045);
    expect(later.maxSeen).toBeGreaterThanOrEqual(0.045);
    expect(later.maxSeen).toBeLessThan(0.3);
    expect(later.last['nodejs_eventloop_lag_p50_seconds']).toBeLessThan(0.1);
    expect(later.last['nodejs_eventloop_lag_p50_seconds']).toBeGreaterThanOrEqual(0);
  });

  it("has prom-client's default families, with the lag gauges as prom-client names and describes them", async () => {
    const reference = new Registry();
    collectDefaultMetrics({ register: reference, eventLoopMonitoringPrecision: 2 ** 31 - 1 });
    const families = (r: Registry): Map<string, string> =>
      new Map(r.getMetricsAsArray().map((m) => [m.name, (m as unknown as { help: string }).help]));
    const ours = families(registry);
    ours.delete('wasm_ccm_event_loop_stall_seconds');
    expect(ours).toEqual(families(reference));
    expect(Object.keys(await scrapeLag()).sort()).toEqual([
      'nodejs_eventloop_lag_max_seconds',
      'nodejs_eventloop_lag_mean_seconds',
      'nodejs_eventloop_lag_min_seconds',
      'nodejs_eventloop_lag_p50_seconds',
      'nodejs_eventloop_lag_p90_seconds',
      'nodejs_eventloop_lag_p99_seconds',
      'nodejs_eventloop_lag_stddev_seconds',
    ]);
  });
});
