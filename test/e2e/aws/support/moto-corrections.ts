// A pass-through in front of moto for cloud-provider-aws, correcting the two places where moto 5.x departs from AWS in
// a way that changes what upstream makes. Everything else goes through byte for byte (headers included, so the SigV4
// signature made for this proxy's host still verifies at moto, which checks it against the Host header).
//
// Correction 1, an answer: a Classic ELB without a HealthCheck. AWS gives every Classic ELB a health check from its
// creation on: DescribeLoadBalancers' LoadBalancerDescription always has HealthCheck, with Target, Interval, Timeout,
// UnhealthyThreshold and HealthyThreshold all required (https://docs.aws.amazon.com/elasticloadbalancing/2012-06-01/APIReference/API_HealthCheck.html),
// the defaults being TCP on the first listener's instance port every 30 s, a 5 s timeout, unhealthy after 2 and
// healthy after 10 checks (https://docs.aws.amazon.com/elasticloadbalancing/latest/classic/elb-healthchecks.html).
// moto leaves HealthCheck out until ConfigureHealthCheck, and upstream's ensureLoadBalancerHealthCheck reads the
// answer's HealthCheck without a nil check: it panics on every new ELB. The proxy adds AWS's default where moto has none.
//
// Correction 2, a request: an ELBv2 load balancer made without a Scheme. AWS documents Scheme as optional with the
// default internet-facing ("The default is an Internet-facing load balancer",
// https://docs.aws.amazon.com/elasticloadbalancing/latest/APIReference/API_CreateLoadBalancer.html), and upstream
// leaves it out for an internet-facing NLB; moto 5.x stores the missing parameter as no scheme at all, so the NLB
// reads back with an empty Scheme (and a CCM taking it over sees neither scheme). The proxy adds
// Scheme=internet-facing to such a CreateLoadBalancer and signs the changed request again with moto's key (the
// signature covers the body); a request that names its scheme goes through unchanged.
import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { type AwsAccessKey, SigV4Signer } from '../../../../host/src/plugin/index.ts';
import { freePort } from '../../../../lab/process/index.ts';

/** moto's accepted key and region: a request the proxy changes is signed again with them. */
export interface MotoSigner {
  accessKey: AwsAccessKey;
  region: string;
}

export interface CorrectingProxy {
  /** `http://127.0.0.1:<port>`: give it to the CCM as every service's endpoint. */
  endpoint: string;
  /** How many answers were corrected (the test checks the correction was needed and made). */
  corrections(): number;
  /** How many CreateLoadBalancer requests got AWS's default scheme (only with a MotoSigner). */
  schemeCorrections(): number;
  close(): Promise<void>;
}

/** `signer`: moto's key, for the request correction; without it requests go through unchanged. */
export async function startCorrectingProxy(motoEndpoint: string, signer?: MotoSigner): Promise<CorrectingProxy> {
  const target = new URL(motoEndpoint);
  const port = await freePort();
  let corrected = 0;
  let schemes = 0;
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => void forward(req, Buffer.concat(chunks), res));
  });
  async function forward(req: IncomingMessage, original: Buffer, res: ServerResponse): Promise<void> {
    let body = original;
    let headers = req.headers;
    const fixed = signer === undefined ? undefined : withDefaultScheme(original.toString('utf8'));
    if (signer !== undefined && fixed !== undefined) {
      body = Buffer.from(fixed, 'utf8');
      headers = await signedAgain(signer, target, req, body);
      schemes++;
    }
    const upstream = request(
      { host: target.hostname, port: target.port, method: req.method, path: req.url, headers },
      (answer) => {
        const parts: Buffer[] = [];
        answer.on('data', (c: Buffer) => parts.push(c));
        answer.on('end', () => {
          const out = correctedAnswer(body.toString('utf8'), Buffer.concat(parts));
          corrected += out.count;
          const headers = { ...answer.headers, 'content-length': String(out.bytes.length) };
          delete headers['transfer-encoding'];
          res.writeHead(answer.statusCode ?? 502, headers);
          res.end(out.bytes);
        });
      },
    );
    upstream.on('error', (err) => {
      res.writeHead(502);
      res.end(String(err));
    });
    upstream.end(body);
  }
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    endpoint: `http://127.0.0.1:${port}`,
    corrections: () => corrected,
    schemeCorrections: () => schemes,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** moto's answer to the request `form`, with Classic ELB descriptions given the health check AWS always has. */
function correctedAnswer(form: string, answer: Buffer): { bytes: Buffer; count: number } {
  if (!form.includes('Action=DescribeLoadBalancers') || !form.includes('Version=2012-06-01')) {
    return { bytes: answer, count: 0 };
  }
  const fixed = withDefaultHealthChecks(answer.toString('utf8'));
  return fixed.count > 0 ? { bytes: Buffer.from(fixed.xml, 'utf8'), count: fixed.count } : { bytes: answer, count: 0 };
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

/** The form body with `Scheme=internet-facing` added when it is an ELBv2 CreateLoadBalancer without a Scheme. */
export function withDefaultScheme(form: string): string | undefined {
  const params = new URLSearchParams(form);
  if (params.get('Action') !== 'CreateLoadBalancer' || params.get('Version') !== '2015-12-01') return undefined;
  if (params.has('Scheme')) return undefined;
  return `${form}&Scheme=internet-facing`;
}

/** The request's headers for `body` signed anew for moto (ELBv2's scope), the old signature and length dropped. */
async function signedAgain(
  signer: MotoSigner,
  target: URL,
  req: IncomingMessage,
  body: Buffer,
): Promise<IncomingMessage['headers']> {
  const contentType = req.headers['content-type'] ?? 'application/x-www-form-urlencoded; charset=utf-8';
  const url = new URL(req.url ?? '/', target);
  const scope = { region: signer.region, service: 'elasticloadbalancing' };
  const signed = await new SigV4Signer(signer.accessKey, scope).sign({
    method: req.method ?? 'POST',
    url,
    headers: { 'content-type': contentType },
    body,
  });
  return { 'content-type': contentType, 'content-length': String(body.length), ...signed.headers };
}
