// The CCM's HTTPS server: health endpoints, Prometheus metrics and debug views, each an encapsulated fastify
// plugin. Everything but the always-allowed health paths needs a token the apiserver vouches for, unless the
// operator deliberately binds to loopback and turns delegated auth off.
import Fastify, { type FastifyInstance, type FastifyListenOptions } from 'fastify';
import type { SecureContextOptions } from 'node:tls';
import type { Registry } from 'prom-client';
import type { Verbosity } from '../log/logger.ts';
import type { DelegatedAuth } from './auth.ts';
import { debugFlagRoutes } from './debug-flags.ts';
import { type HealthEndpoints, healthRoutes } from './health.ts';
import type { SliMetrics } from './slis.ts';
import type { ServingCertificate } from './tls.ts';

export interface DebugViews {
  /** path under /debug/ -> a function producing the JSON to serve. */
  [name: string]: () => unknown;
}

export interface ServerOptions {
  bindAddress: string;
  port: number;
  certificate: ServingCertificate;
  health: HealthEndpoints;
  registry: Registry;
  debug?: DebugViews;
  /** Serves /debug/flags/v (GET reads -v, PUT sets it) when given. */
  verbosity?: Verbosity;
  /** undefined = no authentication (only allowed on loopback; the caller checks). */
  auth?: DelegatedAuth;
  /** Ciphers, minimum version and curves (--tls-cipher-suites, --tls-min-version, --tls-curve-preferences). */
  tls?: SecureContextOptions;
  /** SO_REUSEPORT (--permit-port-sharing): several processes may listen on the port. */
  reusePort?: boolean;
  /** /configz: the configuration in upstream's shape (app/configz.ts). */
  configz?: () => unknown;
  /** /metrics/slis, fed by the health checks. */
  slis?: SliMetrics;
}

export async function buildServer(options: ServerOptions): Promise<FastifyInstance> {
  const app = Fastify({
    https: { ...options.tls, cert: options.certificate.cert, key: options.certificate.key },
    logger: false,
    // Health probes must answer even while the event loop is busy with a big relist.
    connectionTimeout: 30_000,
  });
  if (options.auth) app.addHook('onRequest', options.auth.hook());
  const slis = options.slis;
  await app.register(
    healthRoutes(slis ? { ...options.health, observe: (...r) => slis.observe(...r) } : options.health),
  );
  if (slis) await app.register(slis.routes());
  const configz = options.configz;
  if (configz) await app.register(async (routes) => routes.get('/configz', async () => configz()));
  await app.register(async (metrics) => {
    metrics.get('/metrics', async (_req, reply) => {
      reply.type(options.registry.contentType);
      return options.registry.metrics();
    });
  });
  const debug = options.debug ?? {};
  await app.register(async (views) => {
    for (const [name, produce] of Object.entries(debug)) {
      views.get(`/debug/${name}`, async () => produce());
    }
  });
  if (options.verbosity) await app.register(debugFlagRoutes(options.verbosity));
  return app;
}

export async function startServer(options: ServerOptions): Promise<{ app: FastifyInstance; url: string }> {
  const app = await buildServer(options);
  // fastify hands its listen options to net.Server#listen, which takes reusePort (Node 23.1+); its typings lag.
  const listen: FastifyListenOptions & { reusePort: boolean } = {
    host: options.bindAddress,
    port: options.port,
    reusePort: options.reusePort === true,
  };
  await app.listen(listen);
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : options.port;
  const host = options.bindAddress.includes(':') ? `[${options.bindAddress}]` : options.bindAddress;
  return { app, url: `https://${host}:${port}` };
}
