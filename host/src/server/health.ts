// /healthz, /readyz and /livez with per-check sub-paths, answering like the Kubernetes apiserver's healthz
// package: "ok", or a per-check listing on failure (or with ?verbose) and status 500. /healthz has the checks
// upstream's controller manager has (no ping); /readyz and /livez, which upstream's has not, start with ping.
import type { FastifyInstance, FastifyPluginAsync } from 'fastify';
import { errorMessage } from '../util/error-message.ts';

export interface HealthCheck {
  name: string;
  /** Resolves when healthy; throws (or rejects) with the reason otherwise. */
  check(): void | Promise<void>;
}

export interface HealthEndpoints {
  healthz: readonly HealthCheck[];
  readyz: readonly HealthCheck[];
  livez: readonly HealthCheck[];
  /** Sees each check's result of a /healthz, /readyz or /livez request (the SLI metrics, slis.ts). */
  observe?: (name: string, type: string, ok: boolean) => void;
}

const ping: HealthCheck = { name: 'ping', check: () => undefined };
type Observe = HealthEndpoints['observe'];

async function run(checks: readonly HealthCheck[]): Promise<{ name: string; error?: string }[]> {
  return Promise.all(
    checks.map(async (c) => {
      try {
        await c.check();
        return { name: c.name };
      } catch (err) {
        return { name: c.name, error: errorMessage(err) };
      }
    }),
  );
}

function register(app: FastifyInstance, path: string, all: readonly HealthCheck[], observe: Observe): void {
  app.get<{ Querystring: { verbose?: string; exclude?: string | string[] } }>(
    `/${path}`,
    { schema: { querystring: { type: 'object', properties: { verbose: { type: 'string' } } } } },
    async (req, reply) => {
      const excluded = new Set([req.query.exclude ?? []].flat());
      const results = await run(all.filter((c) => !excluded.has(c.name)));
      for (const r of results) observe?.(r.name, path, r.error === undefined);
      const failed = results.some((r) => r.error !== undefined);
      reply.type('text/plain; charset=utf-8').header('x-content-type-options', 'nosniff');
      if (!failed && req.query.verbose === undefined) return reply.code(200).send('ok');
      const lines = results.map((r) => (r.error === undefined ? `[+]${r.name} ok` : `[-]${r.name} failed: ${r.error}`));
      lines.push(failed ? `${path} check failed` : `${path} check passed`);
      return reply.code(failed ? 500 : 200).send(`${lines.join('\n')}\n`);
    },
  );
  app.get<{ Params: { check: string } }>(`/${path}/:check`, async (req, reply) => {
    const check = all.find((c) => c.name === req.params.check);
    reply.type('text/plain; charset=utf-8');
    if (!check) return reply.code(404).send(`no ${path} check named "${req.params.check}"\n`);
    const [result] = await run([check]);
    if (result?.error === undefined) return reply.code(200).send('ok');
    return reply.code(500).send(`internal server error: ${result.error}\n`);
  });
}

export function healthRoutes(endpoints: HealthEndpoints): FastifyPluginAsync {
  return async (app) => {
    register(app, 'healthz', endpoints.healthz, endpoints.observe);
    register(app, 'readyz', [ping, ...endpoints.readyz], endpoints.observe);
    register(app, 'livez', [ping, ...endpoints.livez], endpoints.observe);
  };
}
