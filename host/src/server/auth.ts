// Delegated authentication and authorization for the serving endpoints, as upstream components do: a bearer
// token is checked with a TokenReview, the user's access to the path with a SubjectAccessReview. Answers are
// cached briefly (10 s, upstream's default) so a scraping Prometheus does not turn into two API calls a scrape.
import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';

export interface UserInfo {
  username: string;
  uid?: string;
  groups: string[];
  extra?: Record<string, string[]>;
}

/** The two review calls, so the logic can be tested without an apiserver. */
export interface ReviewClient {
  tokenReview(token: string): Promise<UserInfo | undefined>;
  /** Is `user` allowed `verb` on the non-resource `path`? */
  subjectAccessReview(user: UserInfo, path: string, verb: string): Promise<{ allowed: boolean; reason: string }>;
}

export interface AuthOptions {
  reviews: ReviewClient;
  /** Paths anyone may GET; an entry ending in `*` is a prefix. */
  alwaysAllowPaths: readonly string[];
  /** How long answers are kept (upstream's --authentication-token-webhook-cache-ttl and
   * --authorization-webhook-cache-(un)authorized-ttl); 10 s each by default. */
  tokenTtlMs?: number;
  authorizedTtlMs?: number;
  unauthorizedTtlMs?: number;
  now?: () => number;
}

interface Cached<T> {
  value: T;
  expires: number;
}

class TtlCache<T> {
  private readonly entries = new Map<string, Cached<T>>();
  private readonly ttlMs: (value: T) => number;
  private readonly now: () => number;

  constructor(ttlMs: (value: T) => number, now: () => number) {
    this.ttlMs = ttlMs;
    this.now = now;
  }

  async get(key: string, load: () => Promise<T>): Promise<T> {
    const hit = this.entries.get(key);
    const now = this.now();
    if (hit && hit.expires > now) return hit.value;
    const value = await load();
    if (this.entries.size > 10_000) this.entries.clear(); // bounded: a flood of random tokens cannot grow it
    this.entries.set(key, { value, expires: now + this.ttlMs(value) });
    return value;
  }
}

function pathAlwaysAllowed(path: string, allow: readonly string[]): boolean {
  return allow.some((p) => (p.endsWith('*') ? path.startsWith(p.slice(0, -1)) : path === p));
}

export type AuthDecision =
  { status: 200; user?: UserInfo } | { status: 401; reason: string } | { status: 403; reason: string; user: UserInfo };

export class DelegatedAuth {
  private readonly options: AuthOptions;
  private readonly tokens: TtlCache<UserInfo | undefined>;
  private readonly decisions: TtlCache<{ allowed: boolean; reason: string }>;

  constructor(options: AuthOptions) {
    this.options = options;
    const now = options.now ?? Date.now;
    const tokenTtl = options.tokenTtlMs ?? 10_000;
    const authorizedTtl = options.authorizedTtlMs ?? 10_000;
    const unauthorizedTtl = options.unauthorizedTtlMs ?? 10_000;
    this.tokens = new TtlCache(() => tokenTtl, now);
    this.decisions = new TtlCache((d) => (d.allowed ? authorizedTtl : unauthorizedTtl), now);
  }

  async decide(path: string, verb: string, authorization: string | undefined): Promise<AuthDecision> {
    if (pathAlwaysAllowed(path, this.options.alwaysAllowPaths)) return { status: 200 };
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '');
    if (!match) return { status: 401, reason: 'a bearer token is required' };
    const token = match[1] as string;
    const tokenKey = createHash('sha256').update(token).digest('hex');
    const user = await this.tokens.get(tokenKey, () => this.options.reviews.tokenReview(token));
    if (!user) return { status: 401, reason: 'the token was not accepted' };
    const decision = await this.decisions.get(`${user.username}\n${user.groups.join(',')}\n${verb}\n${path}`, () =>
      this.options.reviews.subjectAccessReview(user, path, verb),
    );
    if (!decision.allowed) {
      return { status: 403, reason: `user "${user.username}" cannot ${verb} path "${path}"`, user };
    }
    return { status: 200, user };
  }

  /** A fastify onRequest hook enforcing the decision. */
  hook(): (req: FastifyRequest, reply: FastifyReply) => Promise<void> {
    return async (req, reply) => {
      const path = req.url.split('?')[0] ?? '/';
      let decision: AuthDecision;
      try {
        decision = await this.decide(path, req.method.toLowerCase(), req.headers.authorization);
      } catch (err) {
        // The apiserver could not be asked: fail closed, and say so.
        req.log.warn({ err }, 'authentication/authorization review failed');
        await reply.code(503).type('text/plain').send('authorization check unavailable\n');
        return;
      }
      if (decision.status === 401) {
        await reply.code(401).type('text/plain').send(`Unauthorized: ${decision.reason}\n`);
      } else if (decision.status === 403) {
        await reply.code(403).type('text/plain').send(`Forbidden: ${decision.reason}\n`);
      }
    };
  }
}
