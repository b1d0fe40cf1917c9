// Geography: regions and the zones in them. Static for the life of the process.
import type { FastifyInstance } from 'fastify';
import type { Cloud } from '../model/cloud.ts';
import { cloudRoute } from './route-config.ts';

export async function zoneRoutes(app: FastifyInstance, opts: { cloud: Cloud }): Promise<void> {
  const { zones } = opts.cloud;
  app.get('/regions', { ...cloudRoute('listRegions'), handler: async () => ({ items: zones.regions() }) });
  app.get('/zones', { ...cloudRoute('listZones'), handler: async () => ({ items: zones.zones() }) });
}
