// Metrics of hot swaps: how many candidates were applied or refused, how long a swap took from the moment the
// source noticed new bytes until the new plugin served calls, and what shadow mode compared.
import { Counter, Histogram, type Registry } from 'prom-client';
import { alpha } from '../../metrics/stability.ts';

export type SwapResult = 'applied' | 'rejected';

export interface SwapMetrics {
  swapped(provider: string, result: SwapResult, seconds: number): void;
  shadowCompared(provider: string, method: string, same: boolean): void;
}

export function createSwapMetrics(registry: Registry | undefined): SwapMetrics {
  if (registry === undefined) return { swapped() {}, shadowCompared() {} };
  const swaps =
    (registry.getSingleMetric('wasm_ccm_plugin_swaps_total') as Counter<'provider' | 'result'> | undefined) ??
    new Counter({
      name: 'wasm_ccm_plugin_swaps_total',
      help: alpha('Plugin modules offered by a source while running, by provider and result (applied or rejected).'),
      labelNames: ['provider', 'result'],
      registers: [registry],
    });
  const duration =
    (registry.getSingleMetric('wasm_ccm_plugin_swap_duration_seconds') as
      Histogram<'provider' | 'result'> | undefined) ??
    new Histogram({
      name: 'wasm_ccm_plugin_swap_duration_seconds',
      help: alpha('From noticing a new module to serving it (applied) or refusing it (rejected).'),
      labelNames: ['provider', 'result'],
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
      registers: [registry],
    });
  const shadow =
    (registry.getSingleMetric('wasm_ccm_plugin_shadow_comparisons_total') as
      Counter<'provider' | 'method' | 'result'> | undefined) ??
    new Counter({
      name: 'wasm_ccm_plugin_shadow_comparisons_total',
      help: alpha(
        'Read-only calls answered by both the current plugin and a shadowed candidate, by result (same or different).',
      ),
      labelNames: ['provider', 'method', 'result'],
      registers: [registry],
    });
  return {
    swapped(provider, result, seconds) {
      swaps.inc({ provider, result });
      duration.observe({ provider, result }, seconds);
    },
    shadowCompared(provider, method, same) {
      shadow.inc({ provider, method, result: same ? 'same' : 'different' });
    },
  };
}
