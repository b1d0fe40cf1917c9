// Per-route config every devcloud route carries: its operation name (for knobs and counters) and
// whether it is an admin route (admin token required; never fault-injected).
declare module 'fastify' {
  interface FastifyContextConfig {
    op?: string;
    admin?: boolean;
  }
}

export const cloudRoute = (op: string) => ({ config: { op, admin: false } });
export const adminRoute = (op: string) => ({ config: { op, admin: true } });
