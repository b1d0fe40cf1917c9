// Load balancer API: what EnsureLoadBalancer / UpdateLoadBalancer / EnsureLoadBalancerDeleted drive.
import type { FastifyInstance } from 'fastify';
import type { Cloud } from '../model/cloud.ts';
import type { LoadBalancerCreate, LoadBalancerInput } from '../model/load-balancers.ts';
import { parseTagFilters } from '../model/tags.ts';
import { type PagingQuery, paginate, pagingQuery } from './paging.ts';
import { cloudRoute } from './route-config.ts';
import { loadBalancerSpecProperties, nameParams, resourceName, tagFilterQuery } from './schemas.ts';

interface ListQuery extends PagingQuery {
  tag?: string[];
}

export async function loadBalancerRoutes(app: FastifyInstance, opts: { cloud: Cloud }): Promise<void> {
  const lbs = opts.cloud.loadBalancers;

  app.get<{ Querystring: ListQuery }>('/load-balancers', {
    ...cloudRoute('listLoadBalancers'),
    schema: {
      querystring: { type: 'object', additionalProperties: false, properties: { tag: tagFilterQuery, ...pagingQuery } },
    },
    handler: async (req) => paginate(lbs.list(parseTagFilters(req.query.tag)), (lb) => lb.name, req.query),
  });

  app.get<{ Params: { name: string } }>('/load-balancers/:name', {
    ...cloudRoute('getLoadBalancer'),
    schema: { params: nameParams },
    handler: async (req) => lbs.require(req.params.name),
  });

  app.post<{ Body: LoadBalancerCreate }>('/load-balancers', {
    ...cloudRoute('createLoadBalancer'),
    schema: {
      body: {
        type: 'object',
        required: ['name', 'listeners', 'backendInstanceIds'],
        additionalProperties: false,
        properties: { name: resourceName, vip: { type: 'string', maxLength: 45 }, ...loadBalancerSpecProperties },
      },
    },
    handler: async (req, reply) => reply.code(201).send(lbs.create(req.body)),
  });

  app.put<{ Params: { name: string }; Body: LoadBalancerInput }>('/load-balancers/:name', {
    ...cloudRoute('updateLoadBalancer'),
    schema: {
      params: nameParams,
      body: {
        type: 'object',
        required: ['listeners', 'backendInstanceIds'],
        additionalProperties: false,
        properties: loadBalancerSpecProperties,
      },
    },
    handler: async (req) => lbs.update(req.params.name, req.body),
  });

  app.delete<{ Params: { name: string } }>('/load-balancers/:name', {
    ...cloudRoute('deleteLoadBalancer'),
    schema: { params: nameParams },
    handler: async (req, reply) => {
      lbs.delete(req.params.name);
      return reply.code(204).send();
    },
  });
}
