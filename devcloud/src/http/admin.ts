// Admin views and controls: the inventory tests assert on, the fault knobs, counters and a flush.
import type { FastifyInstance } from 'fastify';
import type { Counters } from '../counters.ts';
import type { FaultInjector } from '../faults.ts';
import type { KnobsPatch } from '../knobs.ts';
import type { Cloud } from '../model/cloud.ts';
import type { MutationLog } from '../mutations.ts';
import { adminRoute } from './route-config.ts';

export interface AdminDeps {
  cloud: Cloud;
  faults: FaultInjector;
  counters: Counters;
  mutations: MutationLog;
  flush: () => Promise<void>;
}

const fraction = { type: 'number', minimum: 0, maximum: 1 };
const ms = { type: 'number', minimum: 0 };
const count = { type: 'integer', minimum: 0 };

/** Shape only; ranges and operation names are checked by mergeKnobs, which the embedded handle shares. */
const knobsBody = {
  type: 'object',
  additionalProperties: false,
  properties: {
    latencyMs: ms,
    latencyByKind: { type: 'object', additionalProperties: ms },
    errorRate: fraction,
    errorSeed: { anyOf: [count, { type: 'null' }] },
    throttle: {
      anyOf: [
        {
          type: 'object',
          required: ['ratePerSec', 'burst'],
          additionalProperties: false,
          properties: { ratePerSec: { type: 'number', exclusiveMinimum: 0 }, burst: { type: 'integer', minimum: 1 } },
        },
        { type: 'null' },
      ],
    },
    throttleNext: count,
    retryAfterSeconds: count,
    outage: { type: 'boolean' },
    resetNext: count,
    resetAfterNext: count,
    failNext: {
      type: 'array',
      items: {
        type: 'object',
        required: ['kind', 'count', 'status'],
        additionalProperties: false,
        properties: {
          kind: { type: 'string' },
          count: { type: 'integer', minimum: 1 },
          status: { type: 'integer', enum: [429, 500, 503] },
        },
      },
    },
  },
} as const;

export async function adminRoutes(app: FastifyInstance, deps: AdminDeps): Promise<void> {
  const { cloud, faults, counters } = deps;

  app.get('/admin/inventory', {
    ...adminRoute('adminInventory'),
    handler: async () => ({ ...cloud.inventory(), counters: counters.snapshot(), knobs: faults.get() }),
  });

  app.get('/admin/knobs', { ...adminRoute('adminGetKnobs'), handler: async () => faults.get() });

  app.patch<{ Body: KnobsPatch }>('/admin/knobs', {
    ...adminRoute('adminSetKnobs'),
    schema: { body: knobsBody },
    handler: async (req) => faults.set(req.body),
  });

  app.delete('/admin/knobs', { ...adminRoute('adminResetKnobs'), handler: async () => faults.reset() });

  app.delete('/admin/counters', {
    ...adminRoute('adminResetCounters'),
    handler: async (_req, reply) => {
      counters.reset();
      return reply.code(204).send();
    },
  });

  app.get('/admin/mutations', {
    ...adminRoute('adminMutations'),
    handler: async () => ({ items: deps.mutations.list() }),
  });

  app.delete('/admin/mutations', {
    ...adminRoute('adminResetMutations'),
    handler: async (_req, reply) => {
      deps.mutations.reset();
      return reply.code(204).send();
    },
  });

  app.post('/admin/flush', {
    ...adminRoute('adminFlush'),
    handler: async (_req, reply) => {
      await deps.flush();
      return reply.code(204).send();
    },
  });
}
