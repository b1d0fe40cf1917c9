// Route table API: what the route controller's ListRoutes / CreateRoute / DeleteRoute drive.
import type { FastifyInstance } from 'fastify';
import type { Cloud } from '../model/cloud.ts';
import type { RouteInput } from '../model/routes.ts';
import { parseTagFilters } from '../model/tags.ts';
import { type PagingQuery, paginate, pagingQuery } from './paging.ts';
import { cloudRoute } from './route-config.ts';
import { cidr, description, instanceId, nameParams, resourceName, tagFilterQuery, tagsSchema } from './schemas.ts';

interface ListQuery extends PagingQuery {
  tag?: string[];
  targetInstanceId?: string;
}

export async function routeRoutes(app: FastifyInstance, opts: { cloud: Cloud }): Promise<void> {
  const { routes } = opts.cloud;

  app.get<{ Querystring: ListQuery }>('/routes', {
    ...cloudRoute('listRoutes'),
    schema: {
      querystring: {
        type: 'object',
        additionalProperties: false,
        properties: { tag: tagFilterQuery, targetInstanceId: { type: 'string', maxLength: 63 }, ...pagingQuery },
      },
    },
    handler: async (req) => {
      const { tag, targetInstanceId } = req.query;
      const list = routes.list({ tags: parseTagFilters(tag), ...(targetInstanceId ? { targetInstanceId } : {}) });
      return paginate(list, (r) => r.name, req.query);
    },
  });

  app.get<{ Params: { name: string } }>('/routes/:name', {
    ...cloudRoute('getRoute'),
    schema: { params: nameParams },
    handler: async (req) => routes.require(req.params.name),
  });

  app.post<{ Body: RouteInput }>('/routes', {
    ...cloudRoute('createRoute'),
    schema: {
      body: {
        type: 'object',
        required: ['name', 'destinationCidr', 'targetInstanceId'],
        additionalProperties: false,
        properties: {
          name: resourceName,
          destinationCidr: cidr,
          targetInstanceId: instanceId,
          description,
          tags: tagsSchema,
        },
      },
    },
    handler: async (req, reply) => reply.code(201).send(routes.create(req.body)),
  });

  app.delete<{ Params: { name: string } }>('/routes/:name', {
    ...cloudRoute('deleteRoute'),
    schema: { params: nameParams },
    handler: async (req, reply) => {
      routes.delete(req.params.name);
      return reply.code(204).send();
    },
  });
}
