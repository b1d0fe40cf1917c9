// A loopback front for devcloud that takes SigV4-signed requests where devcloud takes its bearer token: it checks the
// signature as AWS does (signs again what it received, at the request's own X-Amz-Date) and hands the request on to
// devcloud with the token (Fastify's inject, no second connection). The benchmarks that price the host's SigV4
// signing run the devcloud plugin through it. It runs in devcloud's thread, so its CPU counts as the cloud's.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Devcloud } from '../../devcloud/src/index.ts';
import { type AwsAccessKey, type SigV4Scope, SigV4Signer } from '../../host/src/plugin/broker/sigv4-signer.ts';

export interface SigV4Front {
  url: string;
  close(): Promise<void>;
}

export async function startSigV4Front(cloud: Devcloud, key: AwsAccessKey, scope: SigV4Scope): Promise<SigV4Front> {
  const signer = new SigV4Signer(key, scope);
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void forward(req, Buffer.concat(chunks)).then(({ status, headers, body }) =>
        res.writeHead(status, headers).end(body),
      );
    });
  });

  async function forward(req: http.IncomingMessage, body: Buffer): Promise<Answer> {
    const host = String(req.headers.host);
    const authorization = String(req.headers.authorization ?? '');
    const expected = await resign(signer, req, host, body).catch(() => undefined);
    if (expected === undefined || expected !== authorization) {
      return { status: 403, headers: { 'content-type': 'text/plain' }, body: 'SignatureDoesNotMatch' };
    }
    const res = await cloud.app.inject({
      method: req.method as 'GET',
      url: req.url ?? '/',
      headers: { ...req.headers, authorization: `Bearer ${cloud.token}` },
      ...(body.byteLength > 0 ? { payload: body } : {}),
    });
    // With its length: writeHead without one would frame the answer chunked, unlike devcloud's own.
    const length = String(res.rawPayload.byteLength);
    return {
      status: res.statusCode,
      headers: { 'content-type': String(res.headers['content-type']), 'content-length': length },
      body: res.rawPayload,
    };
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: string | Buffer;
}

// The Authorization the request should carry: its signed headers as received, signed at its own date.
async function resign(signer: SigV4Signer, req: http.IncomingMessage, host: string, body: Buffer): Promise<string> {
  const names = /SignedHeaders=([^,]+)/.exec(String(req.headers.authorization))?.[1]?.split(';') ?? [];
  const headers: Record<string, string> = {};
  for (const name of names) if (name !== 'x-amz-date' && name !== 'host') headers[name] = String(req.headers[name]);
  const date = String(req.headers['x-amz-date']).replace(
    /^(\d{4})(\d\d)(\d\d)T(\d\d)(\d\d)(\d\d)Z$/,
    '$1-$2-$3T$4:$5:$6Z',
  );
  const url = new URL(`http://${host}${req.url ?? '/'}`);
  const signed = await signer.sign({ method: req.method ?? 'GET', url, headers, body }, new Date(date));
  return signed.headers.authorization ?? '';
}
