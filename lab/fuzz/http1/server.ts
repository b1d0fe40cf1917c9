// The fuzzer's one raw TCP server on 127.0.0.1. A request for /<case>/<k> is answered with that case's bytes for
// request k, written in the pieces the case says (a pause between pieces), then the connection is closed if the
// answer says so, or after IDLE_CLOSE_MS without a next request (so that a body read to the close always ends).
import net, { type AddressInfo } from 'node:net';
import type { FuzzCase } from './cases.ts';

const IDLE_CLOSE_MS = 250;

export interface FuzzServer {
  origin: { host: string; port: number };
  register(c: FuzzCase): void;
  unregister(id: number): void;
  /** How often the server wrote an answer to `client`'s request k of case `id` (on a connection still open). */
  answered(client: string, id: number, k: number): number;
  close(): Promise<void>;
}

export async function startFuzzServer(): Promise<FuzzServer> {
  const cases = new Map<number, FuzzCase>();
  const counts = new Map<string, number>();
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    let buffered = '';
    let idle: NodeJS.Timeout | undefined;
    socket.on('data', (d) => {
      clearTimeout(idle);
      buffered += d.toString('latin1');
      let end: number;
      while ((end = buffered.indexOf('\r\n\r\n')) >= 0) {
        const head = buffered.slice(0, end);
        buffered = buffered.slice(end + 4);
        const [, id, k] = /^[A-Z]+ \/(\d+)\/(\d+) /.exec(head) ?? [];
        const client = /\r\nx-client: (\w+)/i.exec(head)?.[1] ?? '?';
        const answer = cases.get(Number(id))?.answers[Number(k)];
        if (!answer) {
          socket.destroy();
          return;
        }
        // A request read after the server ended the connection (a keep-alive race) gets no answer.
        if (socket.writableEnded) continue;
        const key = `${client}/${id}/${k}`;
        counts.set(key, (counts.get(key) ?? 0) + 1);
        writePieces(socket, answer.bytes, answer.splits, () => {
          if (answer.close) socket.end();
          else idle = setTimeout(() => socket.end(), IDLE_CLOSE_MS);
        });
      }
    });
    socket.on('close', () => {
      clearTimeout(idle);
      sockets.delete(socket);
    });
    socket.on('error', () => {});
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    origin: { host: '127.0.0.1', port: (server.address() as AddressInfo).port },
    register: (c) => cases.set(c.id, c),
    unregister: (id) => {
      cases.delete(id);
      for (const key of counts.keys()) if (key.split('/')[1] === String(id)) counts.delete(key);
    },
    answered: (client, id, k) => counts.get(`${client}/${id}/${k}`) ?? 0,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** Writes `bytes` cut at `splits`, each piece in a later turn of the event loop than the one before. */
function writePieces(socket: net.Socket, bytes: Buffer, splits: readonly number[], done: () => void): void {
  const cuts = [0, ...splits, bytes.length];
  let i = 0;
  const next = (): void => {
    if (socket.destroyed) return;
    socket.write(bytes.subarray(cuts[i], cuts[i + 1]));
    i++;
    if (i < cuts.length - 1) setImmediate(next);
    else done();
  };
  next();
}
