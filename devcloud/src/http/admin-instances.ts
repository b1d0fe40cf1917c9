// Admin instance lifecycle: what a test does to the "hardware" (create, stop, start, terminate,
// delete, change addresses or labels). Providers never call these.
import type { FastifyInstance } from 'fastify';
import type { Cloud } from '../model/cloud.ts';
import type { InstanceAction, InstancePatch, InstanceSpec } from '../model/instances.ts';
import { adminRoute } from './route-config.ts';
import { addresses, idParams, instanceId, instanceName, instanceType, tagsSchema } from './schemas.ts';

const ACTIONS: ReadonlyArray<{ action: InstanceAction; op: string }> = [
  { action: 'stop', op: 'adminStopInstance' },
  { action: 'start', op: 'adminStartInstance' },
  { action: 'terminate', op: 'adminTerminateInstance' },
];

export async function adminInstanceRoutes(app: FastifyInstance, opts: { cloud: Cloud }): Promise<void> {
  const { cloud } = opts;

  app.post<{ Body: InstanceSpec }>('/admin/instances', {
    ...adminRoute('adminCreateInstance'),
    schema: {
      body: {
        type: 'object',
        required: ['name'],
        additionalProperties: false,
        properties: {
          id: instanceId,
          name: instanceName,
          type: instanceType,
          zone: { type: 'string', minLength: 1, maxLength: 63 },
          addresses,
          labels: tagsSchema,
          state: { type: 'string', enum: ['running', 'stopped'] },
        },
      },
    },
    handler: async (req, reply) => reply.code(201).send(cloud.instances.create(req.body)),
  });

  app.patch<{ Params: { id: string }; Body: InstancePatch }>('/admin/instances/:id', {
    ...adminRoute('adminPatchInstance'),
    schema: {
      params: idParams,
      body: {
        type: 'object',
        additionalProperties: false,
        properties: { type: instanceType, addresses, labels: tagsSchema },
      },
    },
    handler: async (req) => cloud.instances.patch(req.params.id, req.body),
  });

  for (const { action, op } of ACTIONS) {
    app.post<{ Params: { id: string } }>(`/admin/instances/:id/${action}`, {
      ...adminRoute(op),
      schema: { params: idParams },
      handler: async (req) => cloud.instances.act(req.params.id, action),
    });
  }

  app.delete<{ Params: { id: string } }>('/admin/instances/:id', {
    ...adminRoute('adminDeleteInstance'),
    schema: { params: idParams },
    handler: async (req, reply) => {
      cloud.deleteInstance(req.params.id);
      return reply.code(204).send();
    },
  });
}
