// Bearer-token auth. Two tokens: the cloud token (what a provider plugin is given) opens the cloud
// API; the admin token opens everything, including /v1/admin. Without a separate admin token the
// cloud token opens both. Checked first, before any fault injection: unauthenticated calls never
// consume throttle tokens or failNext rules.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from './errors.ts';

const digest = (s: string): Buffer => createHash('sha256').update(s).digest();

export function bearerAuth(token: string, adminToken: string) {
  const cloudDigest = digest(token);
  const adminDigest = digest(adminToken);
  return async (req: FastifyRequest, reply: FastifyReply): Promise<void> => {
    const header = req.headers.authorization;
    const match = header === undefined ? null : /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (!match) {
      reply.header('www-authenticate', 'Bearer realm="devcloud"');
      throw new ApiError(401, 'unauthorized', 'missing "Authorization: Bearer <token>" header');
    }
    // Comparing fixed-size digests keeps the comparison constant-time whatever the token length.
    const presented = digest(match[1]!);
    const isAdmin = timingSafeEqual(presented, adminDigest);
    if (!isAdmin && !timingSafeEqual(presented, cloudDigest)) {
      reply.header('www-authenticate', 'Bearer realm="devcloud", error="invalid_token"');
      throw new ApiError(401, 'unauthorized', 'invalid token');
    }
    if (req.routeOptions.config.admin && !isAdmin) {
      throw new ApiError(403, 'forbidden', 'admin endpoints need the admin token');
    }
  };
}
