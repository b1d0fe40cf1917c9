// A pass-through in front of moto's EC2 endpoint that runs a test's hook before it forwards a request: how a test
// puts another writer's change (another CCM's, an operator's) between a CCM's read and its write, deterministically.
// Requests and answers go through byte for byte (headers included, so the SigV4 signature made for this host still
// verifies at moto, which checks it against the Host header).
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import { join } from 'node:path';
import type { AwsEnv } from '../../../../lab/peers/index.ts';
import { freePort } from '../../../../lab/process/index.ts';

export interface Interposed {
  /** The plugin's options with EC2 reached through the interposer. */
  cloudConfig: string;
  allowedHosts: string[];
  credentialsFile: string;
  close(): Promise<void>;
}

/** `before` sees each EC2 request's form and runs to completion before the request goes on to moto. */
export async function interposeEc2(env: AwsEnv, before: (form: URLSearchParams) => Promise<void>): Promise<Interposed> {
  const target = new URL(env.moto.endpoint);
  const port = await freePort();
  const host = `127.0.0.1:${port}`;
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => void forward(req, Buffer.concat(chunks), res));
  });
  async function forward(req: IncomingMessage, body: Buffer, res: ServerResponse): Promise<void> {
    await before(new URLSearchParams(body.toString('utf8')));
    const upstream = request(
      { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', (err) => {
      res.writeHead(502);
      res.end(String(err));
    });
    upstream.end(body);
  }
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const { credentials } = JSON.parse(readFileSync(env.credentialsFile, 'utf8')) as {
    credentials: Array<{ name: string; hosts: string[] }>;
  };
  const ec2 = credentials.find((c) => c.name === 'ec2');
  if (!ec2) throw new Error(`${env.credentialsFile} has no ec2 entry`);
  const credentialsFile = join(env.dir, `credentials-interposed-${port}.json`);
  writeFileSync(
    credentialsFile,
    JSON.stringify({ credentials: [...credentials, { ...ec2, name: 'ec2-interposed', hosts: [host] }] }),
  );
  const ec2Url = /^URL = http:\/\/127\.0\.0\.1:\d+$/m;
  if (!ec2Url.test(env.cloudConfig)) throw new Error('the cloud config has no EC2 URL at 127.0.0.1');
  return {
    cloudConfig: env.cloudConfig.replace(ec2Url, `URL = http://${host}`),
    allowedHosts: [...env.allowedHosts, host],
    credentialsFile,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
