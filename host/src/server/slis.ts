// /metrics/slis: component-base's SLI metrics, on a registry of their own as upstream serves them: the result of
// each check of the last /healthz (or /readyz, /livez) request, and counts of every result. A DELETE resets them
// (component-base's HandlerWithReset).
import type { FastifyPluginAsync } from 'fastify';
import { Gauge, Registry } from 'prom-client';
import { CounterVec, GaugeVec } from '../metrics/vec.ts';

const STABLE = '[STABLE] ';

export class SliMetrics {
  readonly registry = new Registry();
  readonly #healthcheck: GaugeVec;
  readonly #healthchecks: CounterVec;

  constructor() {
    const registers = [this.registry];
    this.#healthcheck = new GaugeVec({
      name: 'kubernetes_healthcheck',
      help: `${STABLE}This metric records the result of a single healthcheck.`,
      labelNames: ['name', 'type'],
      registers,
    });
    this.#healthchecks = new CounterVec({
      name: 'kubernetes_healthchecks_total',
      help: `${STABLE}This metric records the results of all healthcheck.`,
      labelNames: ['name', 'type', 'status'],
      registers,
    });
    const started = Date.now() / 1000 - process.uptime();
    new Gauge({
      name: 'process_start_time_seconds',
      help: '[ALPHA] Start time of the process since unix epoch in seconds.',
      registers,
      collect() {
        this.set(started);
      },
    });
  }

  /** One check's result in a /healthz, /readyz or /livez request (`type`: healthz, readyz, livez). */
  observe(name: string, type: string, ok: boolean): void {
    this.#healthcheck.withLabelValues(name, type).set(ok ? 1 : 0);
    this.#healthchecks.withLabelValues(name, type, ok ? 'success' : 'error').inc();
  }

  routes(): FastifyPluginAsync {
    return async (app) => {
      app.get('/metrics/slis', async (_req, reply) => {
        reply.type(this.registry.contentType);
        return this.registry.metrics();
      });
      app.delete('/metrics/slis', async (_req, reply) => {
        this.#healthcheck.reset();
        this.#healthchecks.reset();
        return reply.code(200).send('metrics reset\n');
      });
    };
  }
}
