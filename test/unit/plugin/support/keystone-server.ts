// A loopback server shaped like Keystone v3's token API (POST /v3/auth/tokens with a password or an application
// credential, the token in X-Subject-Token, expires_at/issued_at and a catalog in the body) and a cloud endpoint that
// accepts only the tokens it issued and did not revoke: the login-flow broker tests' set-up. Over https when given a
// certificate.
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import type { ServingCertificate } from '../../../../host/src/server/tls.ts';

export const USER = { name: 'ccm', domain: 'Default', password: 'pw-ccm-Secret-1' };
export const APP_CREDENTIAL = { id: 'appcred-0001', secret: 'app-Secret-0001' };
export const REGION = 'RegionOne';

export interface KeystoneLogin {
  body: unknown;
  /** The token issued, or undefined when refused. */
  token?: string;
}

export interface CloudRequest {
  path: string;
  token: string | undefined;
  status: number;
}

export interface FakeKeystone {
  /** `http(s)://127.0.0.1:<port>/v3` */
  authURL: string;
  keystoneHost: string;
  /** The cloud endpoint's host (`127.0.0.1:<port>`) and root URL. */
  cloudHost: string;
  cloudURL: string;
  logins: KeystoneLogin[];
  cloudRequests: CloudRequest[];
  /** The password Keystone takes for USER (changed by a test to see a new secret used). */
  password: string;
  lifetimeSeconds: number;
  /** Every login answered with this status while set. */
  failWith: number | undefined;
  /** Extra catalog entries (services), appended to the standard ones. */
  extraServices: unknown[];
  revoke(token: string): void;
  close(): Promise<void>;
}

interface Listening {
  server: http.Server;
  host: string;
}

async function listen(handler: http.RequestListener, certificate?: ServingCertificate): Promise<Listening> {
  const server = certificate ? https.createServer(certificate, handler) : http.createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, host: `127.0.0.1:${(server.address() as AddressInfo).port}` };
}

function readBody(req: http.IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
  });
}

function json(res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
}

export async function startFakeKeystone(certificate?: ServingCertificate): Promise<FakeKeystone> {
  const scheme = certificate ? 'https' : 'http';
  const valid = new Set<string>();
  let issued = 0;
  const state = {
    logins: [] as KeystoneLogin[],
    cloudRequests: [] as CloudRequest[],
    password: USER.password,
    lifetimeSeconds: 3600,
    failWith: undefined as number | undefined,
    extraServices: [] as unknown[],
  };
  const cloud = await listen(async (req, res) => {
    const body = await readBody(req);
    const token = req.headers['x-auth-token'] as string | undefined;
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    const status = path === '/always-401' || token === undefined || !valid.has(token) ? 401 : 200;
    state.cloudRequests.push({ path, token, status });
    if (status === 401) return json(res, 401, { error: { code: 401, message: 'authentication required' } });
    if (path === '/echo') return json(res, 200, { headers: req.headers, body }, { 'x-echo': token ?? '' });
    json(res, 200, { flavors: [{ id: '1', name: 'm1.small' }] });
  }, certificate);
  const cloudURL = `${scheme}://${cloud.host}/v2.1`;
  const keystone = await listen(async (req, res) => {
    const body = await readBody(req);
    if (req.method !== 'POST' || req.url !== '/v3/auth/tokens') return json(res, 404, { error: { code: 404 } });
    let doc: unknown;
    try {
      doc = JSON.parse(body);
    } catch {
      return json(res, 400, { error: { code: 400, title: 'Bad Request', message: 'not JSON' } });
    }
    if (state.failWith !== undefined || !accepted(doc, state.password)) {
      state.logins.push({ body: doc });
      const code = state.failWith ?? 401;
      return json(res, code, {
        error: {
          code,
          title: code === 401 ? 'Unauthorized' : 'Error',
          message: 'The request you have made requires authentication.',
        },
      });
    }
    const token = `gAAAAA-token-${++issued}-${'x'.repeat(150)}`;
    valid.add(token);
    state.logins.push({ body: doc, token });
    const issuedAt = new Date();
    const expiresAt = new Date(issuedAt.getTime() + state.lifetimeSeconds * 1000);
    json(
      res,
      201,
      {
        token: {
          methods: ['password'],
          issued_at: issuedAt.toISOString().replace('Z', '000Z'),
          expires_at: expiresAt.toISOString().replace('Z', '000Z'),
          catalog: [...catalog(cloudURL, `${scheme}://${keystoneHost()}/v3`), ...state.extraServices],
        },
      },
      { 'x-subject-token': token },
    );
  }, certificate);
  const keystoneHost = (): string => keystone.host;
  const close = (server: http.Server): Promise<void> =>
    new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return Object.assign(state, {
    authURL: `${scheme}://${keystone.host}/v3`,
    keystoneHost: keystone.host,
    cloudHost: cloud.host,
    cloudURL,
    revoke: (token: string) => void valid.delete(token),
    close: async () => {
      await Promise.all([close(cloud.server), close(keystone.server)]);
    },
  });
}

// The cloud's compute endpoint (public, RegionOne) among others the entry's region and interface leave out.
function catalog(cloudURL: string, keystoneURL: string): unknown[] {
  return [
    {
      type: 'compute',
      name: 'nova',
      id: 'c1',
      endpoints: [
        { id: 'e1', interface: 'public', region_id: REGION, region: REGION, url: cloudURL },
        { id: 'e2', interface: 'internal', region_id: REGION, region: REGION, url: 'https://nova.internal:8774/v2.1' },
        {
          id: 'e3',
          interface: 'public',
          region_id: 'RegionTwo',
          region: 'RegionTwo',
          url: 'https://nova.two:8774/v2.1',
        },
      ],
    },
    {
      type: 'identity',
      name: 'keystone',
      id: 'i1',
      endpoints: [{ id: 'e4', interface: 'admin', region_id: REGION, region: REGION, url: keystoneURL }],
    },
  ];
}

// Keystone's checks, for the two identities the tests use.
function accepted(doc: unknown, password: string): boolean {
  const identity = (doc as { auth?: { identity?: Record<string, unknown> } }).auth?.identity;
  const methods = identity?.methods as string[] | undefined;
  if (methods?.[0] === 'password') {
    const user = (identity?.password as { user?: { name?: string; password?: string; domain?: { name?: string } } })
      ?.user;
    return user?.name === USER.name && user.domain?.name === USER.domain && user.password === password;
  }
  if (methods?.[0] === 'application_credential') {
    const credential = identity?.application_credential as { id?: string; secret?: string } | undefined;
    return credential?.id === APP_CREDENTIAL.id && credential.secret === APP_CREDENTIAL.secret;
  }
  return false;
}
