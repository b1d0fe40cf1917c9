// Prometheus metrics of the plugin runtime, per provider, plugin and method. `provider` is the configuration's name
// for the provider (--cloud-provider, or a providers entry), `plugin` the name the module describes itself by: two
// providers served by the same module keep separate series. Several plugins (or test cases) may share one Registry,
// so each metric is created once per registry and reused.
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import { alpha } from '../../metrics/stability.ts';
import { stuckWorkerCount } from '../sandbox/worker-lifecycle.ts';

export interface PluginMetrics {
  /** One finished call, successful or not; `errorCode` set when it failed. */
  observeCall(method: string, seconds: number, errorCode?: string): void;
  /** An instance was replaced (timeout, trap, crash, limit, recycle). */
  instanceRestarted(reason: string): void;
  /** An instance did not hold the kept node list it was expected to (ABI 1.2) and got it again. */
  keptListResent(): void;
}

type Labels = 'provider' | 'plugin' | 'method';

interface MetricSet {
  calls: Counter<Labels>;
  errors: Counter<Labels | 'code'>;
  duration: Histogram<Labels>;
  restarts: Counter<'provider' | 'plugin' | 'reason'>;
  resends: Counter<'provider' | 'plugin'>;
  stuck: Gauge;
}

const sets = new WeakMap<Registry, MetricSet>();

function metricsFor(registry: Registry): MetricSet {
  let set = sets.get(registry);
  if (set === undefined) {
    set = {
      calls:
        reuse(registry, 'wasm_ccm_plugin_calls_total') ??
        new Counter({
          name: 'wasm_ccm_plugin_calls_total',
          help: alpha('Calls made to provider plugins, by provider, plugin and method.'),
          labelNames: ['provider', 'plugin', 'method'],
          registers: [registry],
        }),
      errors:
        reuse(registry, 'wasm_ccm_plugin_call_errors_total') ??
        new Counter({
          name: 'wasm_ccm_plugin_call_errors_total',
          help: alpha('Plugin calls that failed, by provider, plugin, method and error code.'),
          labelNames: ['provider', 'plugin', 'method', 'code'],
          registers: [registry],
        }),
      duration:
        reuse(registry, 'wasm_ccm_plugin_call_duration_seconds') ??
        new Histogram({
          name: 'wasm_ccm_plugin_call_duration_seconds',
          help: alpha('Duration of plugin calls, including HTTP made through the host.'),
          labelNames: ['provider', 'plugin', 'method'],
          buckets: [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
          registers: [registry],
        }),
      restarts:
        reuse(registry, 'wasm_ccm_plugin_instance_restarts_total') ??
        new Counter({
          name: 'wasm_ccm_plugin_instance_restarts_total',
          help: alpha(
            'Plugin instances replaced after a timeout, trap, crash or limit, by provider, plugin and reason.',
          ),
          labelNames: ['provider', 'plugin', 'reason'],
          registers: [registry],
        }),
      resends:
        reuse(registry, 'wasm_ccm_plugin_kept_list_resends_total') ??
        new Counter({
          name: 'wasm_ccm_plugin_kept_list_resends_total',
          help: alpha(
            'Kept node lists (ABI 1.2) sent again because the instance answered that it did not hold them, by provider ' +
              'and plugin.',
          ),
          labelNames: ['provider', 'plugin'],
          registers: [registry],
        }),
      stuck:
        reuse(registry, 'wasm_ccm_plugin_stuck_workers') ??
        new Gauge({
          name: 'wasm_ccm_plugin_stuck_workers',
          help: alpha(
            'Plugin worker threads of this process still running over a second after they were told to terminate.',
          ),
          registers: [registry],
          collect() {
            this.set(stuckWorkerCount());
          },
        }),
    };
    sets.set(registry, set);
  }
  return set;
}

// A registry that already has the metric (another copy of this module registered it) keeps its instance.
function reuse<T>(registry: Registry, name: string): T | undefined {
  return registry.getSingleMetric(name) as T | undefined;
}

/** The metrics of `plugin` (the module's providerName) serving `provider` (the configuration's name for it). */
export function createPluginMetrics(registry: Registry | undefined, provider: string, plugin: string): PluginMetrics {
  if (registry === undefined) return { observeCall() {}, instanceRestarted() {}, keptListResent() {} };
  const set = metricsFor(registry);
  return {
    observeCall(method, seconds, errorCode) {
      set.calls.inc({ provider, plugin, method });
      set.duration.observe({ provider, plugin, method }, seconds);
      if (errorCode !== undefined) set.errors.inc({ provider, plugin, method, code: errorCode });
    },
    instanceRestarted(reason) {
      set.restarts.inc({ provider, plugin, reason });
    },
    keptListResent() {
      set.resends.inc({ provider, plugin });
    },
  };
}
