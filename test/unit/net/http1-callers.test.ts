// What the callers of the HTTP/1.1 client make of its errors: the plugin HTTP broker tells the plugin the client's
// message for an HTTP1_ code (the code alone says less), and a system code as it is.
import { afterEach, describe, expect, it } from 'vitest';
import { CredentialStore } from '../../../host/src/plugin/broker/credential-store.ts';
import { HostAllowList } from '../../../host/src/plugin/broker/allow-list.ts';
import { HttpBroker } from '../../../host/src/plugin/broker/http-broker.ts';
import { rawServer, type RawServer } from './raw-server.ts';

let server: RawServer | undefined;
let broker: HttpBroker | undefined;
afterEach(() => {
  broker?.close();
  server?.close();
});

async function brokered(answer: string): Promise<unknown> {
  server = await rawServer((socket) => socket.write(answer));
  const host = new URL(server.origin).host;
  broker = new HttpBroker({
    allowList: new HostAllowList([host]),
    credentials: CredentialStore.empty(),
    maxResponseBytes: 1024,
    defaultTimeoutMs: 2000,
    maxTimeoutMs: 2000,
    maxRedirects: 1,
  });
  const request = { method: 'GET', url: `${server.origin}/`, headers: {}, body: '', timeoutMs: 0 };
  const bytes = await broker.handle(new TextEncoder().encode(JSON.stringify(request)), new AbortController().signal);
  return (JSON.parse(new TextDecoder().decode(bytes)) as { error?: unknown }).error;
}

describe('HttpBroker and the HTTP/1.1 client errors', () => {
  it('reports a response the client refuses as Network, with the reason in words', async () => {
    const error = await brokered('HTTP/1.1 200 OK\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n');
    expect(error).toEqual({
      code: 'Network',
      message: `request to ${new URL(server?.origin ?? '').host} failed: a response with both Content-Length and Transfer-Encoding`,
    });
  });
});
