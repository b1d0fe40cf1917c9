// A hostile HTTP server on 127.0.0.1 that answers every request with a chunked body of `bodyBytes` bytes ('x'), every
// chunk one byte long: six bytes on the wire per byte of body ("1\r\nx\r\n"), written as fast as the socket takes them.
import net, { type AddressInfo } from 'node:net';

export interface ChunkFloodServer {
  origin: string;
  /** `127.0.0.1:<port>` */
  host: string;
  close(): void;
}

const WRITE_BYTES = 64 * 1024;

export async function chunkFloodServer(bodyBytes: number): Promise<ChunkFloodServer> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
    socket.once('data', () => {
      socket.write('HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\nTransfer-Encoding: chunked\r\n\r\n');
      const piece = Buffer.from('1\r\nx\r\n'.repeat(WRITE_BYTES));
      let sent = 0;
      const more = (): void => {
        while (sent < bodyBytes) {
          const count = Math.min(WRITE_BYTES, bodyBytes - sent);
          sent += count;
          if (!socket.write(count === WRITE_BYTES ? piece : piece.subarray(0, count * 6))) {
            socket.once('drain', more);
            return;
          }
        }
        socket.write('0\r\n\r\n');
      };
      more();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const host = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin: `http://${host}`,
    host,
    close: () => {
      for (const s of sockets) s.destroy();
      server.close();
    },
  };
}
