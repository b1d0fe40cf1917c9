// A pass-through in front of moto for cloud-provider-aws, correcting the one answer where moto 5.x departs from AWS in
// a way that stops upstream's Classic ELB path. Everything else goes through byte for byte (headers included, so the
// SigV4 signature made for this proxy's host still verifies at moto, which checks it against the Host header).
//
// Correction: a Classic ELB without a HealthCheck. AWS gives every Classic ELB a health check from its creation on:
// DescribeLoadBalancers' LoadBalancerDescription always has HealthCheck, with Target, Interval, Timeout,
// UnhealthyThreshold and HealthyThreshold all required (https://docs.aws.amazon.com/elasticloadbalancing/2012-06-01/APIReference/API_HealthCheck.html),
// the defaults being TCP on the first listener's instance port every 30 s, a 5 s timeout, unhealthy after 2 and
// healthy after 10 checks (https://docs.aws.amazon.com/elasticloadbalancing/latest/classic/elb-healthchecks.html).
// moto leaves HealthCheck out until ConfigureHealthCheck, and upstream's ensureLoadBalancerHealthCheck reads the
// answer's HealthCheck without a nil check: it panics on every new ELB. The proxy adds AWS's default where moto has none.
import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { freePort } from '../../../../lab/process/index.ts';

export interface CorrectingProxy {
  /** `http://127.0.0.1:<port>`: give it to the CCM as every service's endpoint. */
  endpoint: string;
  /** How many answers were corrected (the test checks the correction was needed and made). */
  corrections(): number;
  close(): Promise<void>;
}

export async function startCorrectingProxy(motoEndpoint: string): Promise<CorrectingProxy> {
  const target = new URL(motoEndpoint);
  const port = await freePort();
  let corrected = 0;
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const upstream = request(
        { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers },
        (answer) => {
          const parts: Buffer[] = [];
          answer.on('data', (c: Buffer) => parts.push(c));
          answer.on('end', () => {
            let out = Buffer.concat(parts);
            const text = body.toString('utf8');
            if (text.includes('Action=DescribeLoadBalancers') && text.includes('Version=2012-06-01')) {
              const fixed = withDefaultHealthChecks(out.toString('utf8'));
              if (fixed.count > 0) {
                corrected += fixed.count;
                out = Buffer.from(fixed.xml, 'utf8');
              }
            }
            const headers = { ...answer.headers, 'content-length': String(out.length) };
            delete headers['transfer-encoding'];
            res.writeHead(answer.statusCode ?? 502, headers);
            res.end(out);
          });
        },
      );
      upstream.on('error', (err) => {
        res.writeHead(502);
        res.end(String(err));
      });
      upstream.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    endpoint: `http://127.0.0.1:${port}`,
    corrections: () => corrected,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Adds AWS's default HealthCheck to each LoadBalancerDescriptions member that has none. */
export function withDefaultHealthChecks(xml: string): { xml: string; count: number } {
  const open = xml.indexOf('<LoadBalancerDescriptions>');
  const close = xml.indexOf('</LoadBalancerDescriptions>');
  if (open < 0 || close < 0) return { xml, count: 0 };
  const tag = /<(\/?)member>/g;
  tag.lastIndex = open;
  let out = '';
  let last = 0;
  let count = 0;
  let depth = 0;
  let start = 0;
  for (let m = tag.exec(xml); m !== null && m.index < close; m = tag.exec(xml)) {
    if (m[1] === '') {
      if (depth === 0) start = m.index;
      depth++;
      continue;
    }
    depth--;
    // The end of one load balancer's description (the members inside it are its listeners, groups, subnets...).
    if (depth !== 0 || xml.slice(start, m.index).includes('<HealthCheck>')) continue;
    const port = /<InstancePort>(\d+)<\/InstancePort>/.exec(xml.slice(start, m.index))?.[1] ?? '80';
    out += xml.slice(last, m.index) + defaultHealthCheck(port);
    last = m.index;
    count++;
  }
  return { xml: out + xml.slice(last), count };
}

function defaultHealthCheck(port: string): string {
  return (
    `<HealthCheck><Target>TCP:${port}</Target><Interval>30</Interval><Timeout>5</Timeout>` +
    '<UnhealthyThreshold>2</UnhealthyThreshold><HealthyThreshold>10</HealthyThreshold></HealthCheck>'
  );
}
