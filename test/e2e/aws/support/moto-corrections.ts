// A pass-through in front of moto for the CCMs, correcting the answers where moto 5.x departs from AWS in a way that
// stops upstream's Classic ELB path or hides what a CCM asked for. Everything else goes through byte for byte (headers
// included, so the SigV4 signature made for this proxy's host still verifies at moto, which checks it against the Host
// header).
//
// Correction: a Classic ELB without a HealthCheck. AWS gives every Classic ELB a health check from its creation on:
// DescribeLoadBalancers' LoadBalancerDescription always has HealthCheck, with Target, Interval, Timeout,
// UnhealthyThreshold and HealthyThreshold all required (https://docs.aws.amazon.com/elasticloadbalancing/2012-06-01/APIReference/API_HealthCheck.html),
// the defaults being TCP on the first listener's instance port every 30 s, a 5 s timeout, unhealthy after 2 and
// healthy after 10 checks (https://docs.aws.amazon.com/elasticloadbalancing/latest/classic/elb-healthchecks.html).
// moto leaves HealthCheck out until ConfigureHealthCheck, and upstream's ensureLoadBalancerHealthCheck reads the
// answer's HealthCheck without a nil check: it panics on every new ELB. The proxy adds AWS's default where moto has none.
//
// Correction: a listener's InstanceProtocol. AWS keeps the protocol a listener forwards to the instances apart from the
// one it listens with (an SSL listener to TCP back ends, HTTPS to HTTP: the Listener's InstanceProtocol,
// https://docs.aws.amazon.com/elasticloadbalancing/2012-06-01/APIReference/API_Listener.html, and "Protocols" in
// https://docs.aws.amazon.com/elasticloadbalancing/latest/classic/elb-listener-config.html). moto stores one protocol
// per listener and answers it as both, so a CCM that compares listeners (both do) sees "SSL to SSL" where it made "SSL
// to TCP" and replaces the listener on every sync, and the differential could not tell the back-end protocols apart.
// The proxy keeps the InstanceProtocol each CreateLoadBalancer(Listeners) request gave and answers it.
import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { freePort } from '../../../../lab/process/index.ts';

export interface Corrections {
  healthChecks: number;
  instanceProtocols: number;
}

export interface CorrectingProxy {
  /** `http://127.0.0.1:<port>`: give it to the CCM as every service's endpoint. */
  endpoint: string;
  /** How many load balancer descriptions each correction changed (the tests check a correction was needed and made). */
  corrections(): Corrections;
  close(): Promise<void>;
}

export async function startCorrectingProxy(motoEndpoint: string): Promise<CorrectingProxy> {
  const target = new URL(motoEndpoint);
  const port = await freePort();
  const corrected: Corrections = { healthChecks: 0, instanceProtocols: 0 };
  const protocols = new InstanceProtocols();
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
            const form = new URLSearchParams(body.toString('utf8'));
            if (form.get('Version') === '2012-06-01' && (answer.statusCode ?? 500) < 300) protocols.observe(form);
            if (form.get('Action') === 'DescribeLoadBalancers' && form.get('Version') === '2012-06-01') {
              const checks = withDefaultHealthChecks(out.toString('utf8'));
              const fixed = protocols.correct(checks.xml);
              if (checks.count + fixed.count > 0) {
                corrected.healthChecks += checks.count;
                corrected.instanceProtocols += fixed.count;
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
    corrections: () => ({ ...corrected }),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
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
