// Ajv type coercion is off so a body's "80" or 0-for-null is a 400, not silently accepted. Query
// strings are text by nature, so they get the two conversions they need here, driven by the route's
// own querystring schema: a single value for an array parameter, and digits for an integer one.
import type { FastifyRequest } from 'fastify';

interface PropertySchema {
  type?: string;
}

export async function normalizeQuery(req: FastifyRequest): Promise<void> {
  const schema = req.routeOptions.schema?.querystring as { properties?: Record<string, PropertySchema> } | undefined;
  const props = schema?.properties;
  if (!props || typeof req.query !== 'object' || req.query === null) return;
  const query = req.query as Record<string, unknown>;
  for (const [key, value] of Object.entries(query)) {
    const type = props[key]?.type;
    if (type === 'array' && typeof value === 'string') query[key] = [value];
    else if (type === 'integer' && typeof value === 'string' && /^-?\d{1,15}$/.test(value)) query[key] = Number(value);
  }
}
