// Read-only instance API for providers: get by id (InstancesV2 by providerID), get by name
// (node name fallback), and a filtered list.
import type { FastifyInstance } from 'fastify';
import { notFound } from '../errors.ts';
import type { Cloud } from '../model/cloud.ts';
import { parseTagFilters } from '../model/tags.ts';
import { INSTANCE_STATES, type InstanceState } from '../model/types.ts';
import { type PagingQuery, paginate, pagingQuery } from './paging.ts';
import { cloudRoute } from './route-config.ts';
import { idParams, nameParams, tagFilterQuery } from './schemas.ts';

interface ListQuery extends PagingQuery {
  name?: string;
  state?: InstanceState[];
  zone?: string;
  label?: string[];
}

export async function instanceRoutes(app: FastifyInstance, opts: { cloud: Cloud }): Promise<void> {
  const { instances } = opts.cloud;

  app.get<{ Querystring: ListQuery }>('/instances', {
    ...cloudRoute('listInstances'),
    schema: {
      querystring: {
        type: 'object',
        additionalProperties: false,
        properties: {
          name: { type: 'string', maxLength: 253 },
          state: { type: 'array', items: { type: 'string', enum: INSTANCE_STATES } },
          zone: { type: 'string', maxLength: 63 },
          label: tagFilterQuery,
          ...pagingQuery,
        },
      },
    },
    handler: async (req) => {
      const q = req.query;
      const list = instances.list({
        ...(q.name !== undefined ? { name: q.name } : {}),
        ...(q.state ? { states: new Set(q.state) } : {}),
        ...(q.zone !== undefined ? { zone: q.zone } : {}),
        labels: parseTagFilters(q.label),
      });
      return paginate(list, (i) => i.id, q);
    },
  });

  app.get<{ Params: { name: string } }>('/instances/by-name/:name', {
    ...cloudRoute('getInstanceByName'),
    schema: { params: nameParams },
    handler: async (req) => {
      const i = instances.getByName(req.params.name);
      if (!i) throw notFound(`instance named "${req.params.name}"`);
      return i;
    },
  });

  app.get<{ Params: { id: string } }>('/instances/:id', {
    ...cloudRoute('getInstance'),
    schema: { params: idParams },
    handler: async (req) => instances.require(req.params.id),
  });
}
