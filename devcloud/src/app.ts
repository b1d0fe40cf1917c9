// Assembles the Fastify app: auth, fault injection and counting around the resource plugins.
import Fastify, { type FastifyInstance, type FastifyReply } from 'fastify';
import { bearerAuth } from './auth.ts';
import type { Counters } from './counters.ts';
import { errorHandler, notFoundHandler } from './errors.ts';
import type { FaultInjector } from './faults.ts';
import { adminRoutes } from './http/admin.ts';
import { adminInstanceRoutes } from './http/admin-instances.ts';
import { instanceRoutes } from './http/instances.ts';
import { loadBalancerRoutes } from './http/load-balancers.ts';
import { normalizeQuery } from './http/query.ts';
import { routeRoutes } from './http/routes.ts';
import { zoneRoutes } from './http/zones.ts';
import type { Cloud } from './model/cloud.ts';
import { CALLER_HEADER, type MutationLog } from './mutations.ts';
import { CLOUD_OPS, isCloudOp } from './ops.ts';

export interface AppDeps {
  cloud: Cloud;
  faults: FaultInjector;
  counters: Counters;
  mutations: MutationLog;
  token: string;
  adminToken: string;
  flush: () => Promise<void>;
  logger?: boolean;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** When each cloud request arrived: a mutation is dated by it, not by its (possibly delayed) answer. */
const arrivedAt = new WeakMap<object, number>();

/** Ends the request without an answer, as a dropped connection would. */
function resetConnection(reply: FastifyReply): void {
  reply.hijack();
  reply.raw.socket?.destroy();
}

export function buildApp(deps: AppDeps): FastifyInstance {
  const app = Fastify({
    logger: deps.logger ?? false,
    bodyLimit: 8 * 1024 * 1024,
    // Reject unknown properties and wrong types instead of Fastify's default of dropping or coercing them.
    ajv: { customOptions: { removeAdditional: false, coerceTypes: false } },
  });
  // HTTP helpers (a plugin's among them) often send Content-Type: application/json on every request;
  // an empty body then means "no body", not a parse error. Non-empty bodies keep Fastify's parser,
  // which refuses __proto__ and constructor.prototype keys.
  const json = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (req, body, done) => {
    if (body === '') done(null, undefined);
    else json(req, body as string, done);
  });
  app.setErrorHandler(errorHandler);
  app.setNotFoundHandler(notFoundHandler);

  app.addHook('onRequest', bearerAuth(deps.token, deps.adminToken));
  app.addHook('onRequest', async (req, reply) => {
    const { op, admin } = req.routeOptions.config;
    if (admin || op === undefined || !isCloudOp(op)) return;
    arrivedAt.set(req, Date.now());
    if (deps.faults.resetBefore()) return resetConnection(reply);
    const refused = deps.faults.admit(op);
    if (refused) throw refused;
    const delay = deps.faults.delayMs(op);
    if (delay > 0) await sleep(delay);
    const failed = deps.faults.inject(op);
    if (failed) throw failed;
  });
  app.addHook('preValidation', normalizeQuery);
  app.addHook('onSend', async (req, reply, payload) => {
    const { op } = req.routeOptions.config;
    if (op === undefined || !isCloudOp(op) || CLOUD_OPS[op] !== 'write' || reply.statusCode >= 300) return payload;
    const caller = req.headers[CALLER_HEADER];
    deps.mutations.record({
      at: arrivedAt.get(req) ?? Date.now(),
      op,
      caller: typeof caller === 'string' ? caller : '',
      target: `${req.method} ${req.url}`,
      status: reply.statusCode,
    });
    if (deps.faults.resetAfter(op)) reply.raw.socket?.destroy();
    return payload;
  });
  app.addHook('onResponse', async (req, reply) => {
    const route = req.routeOptions.url ?? 'unmatched';
    deps.counters.record(req.routeOptions.config.op ?? 'unmatched', req.method, route, reply.statusCode);
  });

  const v1 = { prefix: '/v1', cloud: deps.cloud };
  app.register(zoneRoutes, v1);
  app.register(instanceRoutes, v1);
  app.register(loadBalancerRoutes, v1);
  app.register(routeRoutes, v1);
  app.register(adminInstanceRoutes, v1);
  app.register(adminRoutes, {
    ...v1,
    faults: deps.faults,
    counters: deps.counters,
    mutations: deps.mutations,
    flush: deps.flush,
  });
  return app;
}
