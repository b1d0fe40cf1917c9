// A pass-through in front of moto for the CCMs, correcting the places where moto 5.x departs from AWS in a way that
// stops upstream's Classic ELB path or hides what a CCM asked for. Everything else goes through byte for byte (headers
// included, so the SigV4 signature made for this proxy's host still verifies at moto, which checks it against the Host
// header).
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
//
// Correction 3, an answer: a listener's InstanceProtocol. AWS keeps the protocol a listener forwards to the instances apart from the
// one it listens with (an SSL listener to TCP back ends, HTTPS to HTTP: the Listener's InstanceProtocol,
// https://docs.aws.amazon.com/elasticloadbalancing/2012-06-01/APIReference/API_Listener.html, and "Protocols" in
// https://docs.aws.amazon.com/elasticloadbalancing/latest/classic/elb-listener-config.html). moto stores one protocol
// per listener and answers it as both, so a CCM that compares listeners (both do) sees "SSL to SSL" where it made "SSL
// to TCP" and replaces the listener on every sync, and the differential could not tell the back-end protocols apart.
// The proxy keeps the InstanceProtocol each CreateLoadBalancer(Listeners) request gave and answers it.
import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { type AwsAccessKey, SigV4Signer } from '../../../../host/src/plugin/index.ts';
import { freePort } from '../../../../lab/process/index.ts';

/** moto's accepted key and region: a request the proxy changes is signed again with them. */
export interface MotoSigner {
  accessKey: AwsAccessKey;
  region: string;
}

/** How many load balancer descriptions each answer correction changed. */
export interface Corrections {
  healthChecks: number;
  instanceProtocols: number;
}

export interface CorrectingProxy {
  /** `http://127.0.0.1:<port>`: give it to the CCM as every service's endpoint. */
  endpoint: string;
  /** How many answers each correction changed (the tests check a correction was needed and made). */
  corrections(): Corrections;
  /** How many CreateLoadBalancer requests got AWS's default scheme (only with a MotoSigner). */
  schemeCorrections(): number;
  close(): Promise<void>;
}

/** `signer`: moto's key, for the request correction; without it requests go through unchanged. */
export async function startCorrectingProxy(motoEndpoint: string, signer?: MotoSigner): Promise<CorrectingProxy> {
  const target = new URL(motoEndpoint);
  const port = await freePort();
  const corrected: Corrections = { healthChecks: 0, instanceProtocols: 0 };
  const protocols = new InstanceProtocols();
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
          const form = new URLSearchParams(body.toString('utf8'));
          const ok = (answer.statusCode ?? 500) < 300;
          const out = correctedAnswer(form, ok, Buffer.concat(parts), protocols, corrected);
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
  }
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    endpoint: `http://127.0.0.1:${port}`,
    corrections: () => ({ ...corrected }),
    schemeCorrections: () => schemes,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/**
 * moto's answer to the request `form`: Classic ELB descriptions given the health check AWS always has and each
 * listener's InstanceProtocol as made (what moto carried out is recorded first); `corrected` counts the changes.
 */
function correctedAnswer(
  form: URLSearchParams,
  ok: boolean,
  answer: Buffer,
  protocols: InstanceProtocols,
  corrected: Corrections,
): Buffer {
  if (form.get('Version') !== '2012-06-01') return answer;
  if (ok) protocols.observe(form);
  if (form.get('Action') !== 'DescribeLoadBalancers') return answer;
  const checks = withDefaultHealthChecks(answer.toString('utf8'));
  const fixed = protocols.correct(checks.xml);
  if (checks.count + fixed.count === 0) return answer;
  corrected.healthChecks += checks.count;
  corrected.instanceProtocols += fixed.count;
  return Buffer.from(fixed.xml, 'utf8');
}

/** Adds AWS's default HealthCheck to each LoadBalancerDescriptions member that has none. */
export function withDefaultHealthChecks(xml: string): { xml: string; count: number } {
  return editDescriptions(xml, (description) => {
    if (description.includes('<HealthCheck>')) return undefined;
    const port = /<InstancePort>(\d+)<\/InstancePort>/.exec(description)?.[1] ?? '80';
    return description + defaultHealthCheck(port);
  });
}

/**
 * Each load balancer's description in a DescribeLoadBalancers answer (the text inside its member element) through
 * `edit`, which answers the new text or undefined to leave it; how many it changed.
 */
function editDescriptions(
  xml: string,
  edit: (description: string) => string | undefined,
): { xml: string; count: number } {
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
    if (depth !== 0) continue;
    const inner = start + '<member>'.length;
    const edited = edit(xml.slice(inner, m.index));
    if (edited === undefined) continue;
    out += xml.slice(last, inner) + edited;
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

/** The InstanceProtocol of each listener as the requests that made it gave it: load balancer -> port -> protocol. */
export class InstanceProtocols {
  readonly #byName = new Map<string, Map<string, string>>();

  /** Takes what a request moto carried out makes or removes. */
  observe(form: URLSearchParams): void {
    const name = form.get('LoadBalancerName') ?? '';
    const action = form.get('Action');
    if (action === 'DeleteLoadBalancer') this.#byName.delete(name);
    if (action === 'DeleteLoadBalancerListeners') {
      for (const [key, port] of form)
        if (key.startsWith('LoadBalancerPorts.member.')) this.#byName.get(name)?.delete(port);
    }
    if (action !== 'CreateLoadBalancer' && action !== 'CreateLoadBalancerListeners') return;
    const ports = this.#byName.get(name) ?? new Map<string, string>();
    this.#byName.set(name, ports);
    for (const [key, port] of form) {
      const n = /^Listeners\.member\.(\d+)\.LoadBalancerPort$/.exec(key)?.[1];
      const protocol = n === undefined ? null : form.get(`Listeners.member.${n}.InstanceProtocol`);
      if (protocol) ports.set(port, protocol.toUpperCase());
    }
  }

  /** The answer with each listener's InstanceProtocol as made; how many descriptions it changed. */
  correct(xml: string): { xml: string; count: number } {
    return editDescriptions(xml, (description) => {
      const name = /<LoadBalancerName>([^<]*)<\/LoadBalancerName>/.exec(description)?.[1] ?? '';
      const ports = this.#byName.get(name);
      if (ports === undefined) return undefined;
      let changed = false;
      const fixed = description.replace(/<Listener>([\s\S]*?)<\/Listener>/g, (listener, inner: string) => {
        const port = /<LoadBalancerPort>(\d+)<\/LoadBalancerPort>/.exec(inner)?.[1] ?? '';
        const want = ports.get(port);
        const now = /<InstanceProtocol>([^<]*)<\/InstanceProtocol>/.exec(inner)?.[1];
        if (want === undefined || now === undefined || now === want) return listener;
        changed = true;
        return listener.replace(
          `<InstanceProtocol>${now}</InstanceProtocol>`,
          `<InstanceProtocol>${want}</InstanceProtocol>`,
        );
      });
      return changed ? fixed : undefined;
    });
  }
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
