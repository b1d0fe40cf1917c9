// Read-only instance API for providers: get by id (InstancesV2 by providerID), get by name
// (node name fallback), many by ids or by names in one request (a provider's batched calls), and a filtered list.
import type { FastifyInstance } from 'fastify';
import { notFound } from '../errors.ts';
import { MAX_INSTANCES_PER_LOOKUP } from '../model/limits.ts';
import type { Cloud } from '../model/cloud.ts';
import { parseTagFilters } from '../model/tags.ts';
import { INSTANCE_STATES, type InstanceState } from '../model/types.ts';
import { type PagingQuery, paginate, pagingQuery } from './paging.ts';
import { cloudRoute } from './route-config.ts';
import { idParams, instanceId, instanceName, nameParams, tagFilterQuery } from './schemas.ts';

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

  // Many at once, as a cloud's list-by-IDs: the instances found, each once, in the order first asked for; an id or
  // name no instance has is left out (the caller treats it as not found), not an error for the whole request.
  const lookupQuery = (key: string, item: object) => ({
    querystring: {
      type: 'object',
      additionalProperties: false,
      required: [key],
      properties: { [key]: { type: 'array', minItems: 1, maxItems: MAX_INSTANCES_PER_LOOKUP, items: item } },
    },
  });
  const found = <T>(keys: string[], lookup: (key: string) => T | undefined) => ({
    items: [...new Set(keys)].map(lookup).filter((i): i is T => i !== undefined),
  });

  app.get<{ Querystring: { id: string[] } }>('/instances/by-ids', {
    ...cloudRoute('getInstancesByIds'),
    schema: lookupQuery('id', instanceId),
    handler: async (req) => found(req.query.id, (id) => instances.get(id)),
  });

  app.get<{ Querystring: { name: string[] } }>('/instances/by-names', {
    ...cloudRoute('getInstancesByNames'),
    schema: lookupQuery('name', instanceName),
    handler: async (req) => found(req.query.name, (name) => instances.getByName(name)),
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
