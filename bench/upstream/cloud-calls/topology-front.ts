// A front before moto for both CCMs on AWS. moto does not implement ec2:DescribeInstanceTopology (it answers 500),
// which cloud-provider-aws asks for every new node, retried with backoff: three requests and ~3.5 s per node, where
// AWS answers an instance type without topology (m5.large, what the benchmark runs) with an empty set once, and
// cloud-provider-aws then stops asking for that type. The front answers that call as AWS does and passes every other
// request to moto byte for byte, Host included (so moto checks the very signature the CCM made). It counts what it
// answers itself, which moto's log never sees.
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface TopologyFront {
  readonly port: number;
  /** DescribeInstanceTopology requests the front answered so far. */
  answered(): number;
  close(): Promise<void>;
}

const EMPTY_TOPOLOGY =
  '<?xml version="1.0" encoding="UTF-8"?>\n<DescribeInstanceTopologyResponse xmlns="http://ec2.amazonaws.com/doc/2016-11-15/">' +
  '<requestId>00000000-0000-0000-0000-000000000000</requestId><instanceSet/></DescribeInstanceTopologyResponse>';

export async function startTopologyFront(motoEndpoint: string): Promise<TopologyFront> {
  const moto = new URL(motoEndpoint);
  let answered = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const action = new URLSearchParams(body.toString('utf8')).get('Action');
      if (req.method === 'POST' && action === 'DescribeInstanceTopology') {
        answered++;
        res.writeHead(200, { 'content-type': 'text/xml' }).end(EMPTY_TOPOLOGY);
        return;
      }
      const upstream = request(
        { host: moto.hostname, port: moto.port, method: req.method, path: req.url, headers: req.headers },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      upstream.on('error', (err) => res.writeHead(502).end(String(err)));
      upstream.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    answered: () => answered,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
