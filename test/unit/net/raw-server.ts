// A raw TCP server on 127.0.0.1 that answers HTTP requests with whatever bytes a test writes: a hostile or broken
// server, which node:http's server could not be made to imitate.
import net, { type AddressInfo } from 'node:net';

export interface RawRequest {
  /** The request line, e.g. "GET /r1 HTTP/1.1". */
  line: string;
  /** 1 for the first request head seen on this socket. */
  n: number;
}

export interface RawServer {
  origin: string;
  /** Connections accepted so far. */
  readonly accepted: number;
  close(): void;
}

/** Calls `onRequest(socket, request)` for each request head (requests carry no body here) seen on each socket. */
export async function rawServer(onRequest: (socket: net.Socket, request: RawRequest) => void): Promise<RawServer> {
  const sockets = new Set<net.Socket>();
  let accepted = 0;
  const server = net.createServer((socket) => {
    sockets.add(socket);
    accepted++;
    let seen = 0;
    let buffered = '';
    socket.on('data', (d) => {
      buffered += d.toString('latin1');
      let end: number;
      while ((end = buffered.indexOf('\r\n\r\n')) >= 0) {
        const line = buffered.slice(0, buffered.indexOf('\r\n'));
        buffered = buffered.slice(end + 4);
        onRequest(socket, { line, n: ++seen });
      }
    });
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    get accepted() {
      return accepted;
    },
    close: () => {
      for (const s of sockets) s.destroy();
      server.close();
    },
  };
}

/** The path of a request line ("GET /r1 HTTP/1.1" -> "/r1"). */
export const pathOf = (request: RawRequest): string => request.line.split(' ')[1] ?? '';
