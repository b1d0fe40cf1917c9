// Loopback HTTP servers for the broker and plugin HTTP tests: each records what it received and answers by path.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface SeenRequest {
  method: string;
  path: string;
  /** The request target as received, query included. */
  target: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  /** The body's bytes as received (binary bodies). */
  raw: Buffer;
}

export interface TestServer {
  /** `127.0.0.1:<port>` */
  host: string;
  url: (path: string) => string;
  seen: SeenRequest[];
  close: () => Promise<void>;
}

export type Route = (req: SeenRequest, res: http.ServerResponse) => void;

export async function startServer(routes: Record<string, Route>): Promise<TestServer> {
  const seen: SeenRequest[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = (req.url ?? '/').split('?')[0] ?? '/';
      const raw = Buffer.concat(chunks);
      const request = {
        method: req.method ?? '',
        path,
        target: req.url ?? '/',
        headers: req.headers,
        body: raw.toString('utf8'),
        raw,
      };
      seen.push(request);
      const route = routes[path];
      if (route) route(request, res);
      else res.writeHead(404).end('no route');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const host = `127.0.0.1:${port}`;
  return {
    host,
    url: (path) => `http://${host}${path}`,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
