// Documents shaped like the answers moto (and AWS) give to EC2 and ELBv2 Query calls, with the XML a hostile or
// unusual server could add: entities and character references, CDATA, comments, processing instructions, CRLF line
// ends, namespace prefixes, attributes in both quotes, names and text outside ASCII.
import type { Random } from '../json/index.ts';

const EC2_NS = 'http://ec2.amazonaws.com/doc/2016-11-15/';
const ELB_NS = 'http://elasticloadbalancing.amazonaws.com/doc/2015-12-01/';
const WORDS = ['i-0abc123', 'running', 'stopped', 'us-east-1a', 'ip-10-0-0-1.ec2.internal', 'm5.large', 'vpc-1', ''];
const AWKWARD = ['a & b', '<tag>', '"quoted"', "it's", 'Grüße', '日本', '😀', 'line\nbreak', ' \t spaced ', ']]', '>'];
const NAMES = ['item', 'member', 'instanceId', 'ec2:tagSet', 'Key', 'Value', 'état', 'x-y.z_1', 'ns:a', '_n'];

/** A document: usually an EC2 or ELBv2 answer, sometimes a free-form one. */
export function generateDocument(rng: Random): string {
  const prolog = rng.chance(0.7)
    ? `<?xml version="1.0" encoding="UTF-8"${rng.chance(0.1) ? ' standalone="yes"' : ''}?>`
    : '';
  const nl = rng.chance(0.2) ? '\r\n' : '\n';
  const body = rng.chance(0.01) ? nested(rng.int(250, 262)) : rng.pick(SHAPES)(rng, nl);
  const tail = rng.chance(0.1) ? `${nl}<!-- served by moto -->${nl}` : nl;
  return `${prolog}${nl}${body}${tail}`;
}

function value(rng: Random): string {
  return rng.chance(0.8) ? rng.pick(WORDS) : rng.pick(AWKWARD);
}

/** Text as a server would write it: escaped, sometimes with references, CDATA or a comment in it. */
function text(rng: Random, raw: string): string {
  const choice = rng.int(0, 9);
  if (choice === 0 && !raw.includes(']]>')) return `<![CDATA[${raw}]]>`;
  let out = escape(raw);
  if (choice === 1) out += `&#${rng.int(32, 0x2fff)};`;
  if (choice === 2) out += `&#x${rng.int(0x20, 0x1f600).toString(16)};`;
  if (choice === 3) out = `<!-- c -->${out}`;
  if (choice === 4) out += '<?pi some data?>';
  return out;
}

function escape(raw: string, quote = '"'): string {
  let out = raw.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll(']]>', ']]&gt;');
  if (quote) out = out.replaceAll(quote, quote === '"' ? '&quot;' : '&apos;');
  return out;
}

function field(rng: Random, name: string, raw = value(rng)): string {
  return raw === '' && rng.chance(0.5) ? `<${name}/>` : `<${name}>${text(rng, raw)}</${name}>`;
}

function tags(rng: Random, nl: string, wrapper: string, item: string): string {
  const items = [];
  for (let i = rng.int(0, 3); i > 0; i--) {
    items.push(`<${item}>${field(rng, 'key', 'kubernetes.io/cluster/c')}${field(rng, 'value')}</${item}>`);
  }
  return `<${wrapper}>${items.join(nl)}</${wrapper}>`;
}

function describeInstances(rng: Random, nl: string): string {
  const instances = [];
  for (let i = rng.int(0, 3); i > 0; i--) {
    instances.push(
      `<item>${nl}  ${field(rng, 'instanceId')}${field(rng, 'instanceType')}` +
        `<instanceState><code>16</code>${field(rng, 'name')}</instanceState>${field(rng, 'privateDnsName')}` +
        `<placement>${field(rng, 'availabilityZone')}</placement>${tags(rng, nl, 'tagSet', 'item')}</item>`,
    );
  }
  return (
    `<DescribeInstancesResponse xmlns="${EC2_NS}">${nl}<requestId>${rng.int(0, 1e9)}</requestId>${nl}` +
    `<reservationSet><item><reservationId>r-1</reservationId><instancesSet>${instances.join(nl)}</instancesSet>` +
    `</item></reservationSet>${nl}</DescribeInstancesResponse>`
  );
}

function describeLoadBalancers(rng: Random, nl: string): string {
  const members = [];
  for (let i = rng.int(0, 2); i > 0; i--) {
    members.push(
      `<member>${field(rng, 'LoadBalancerArn')}${field(rng, 'DNSName')}<Scheme>internet-facing</Scheme>` +
        `<State><Code>active</Code></State><Type>network</Type></member>`,
    );
  }
  return (
    `<DescribeLoadBalancersResponse xmlns='${ELB_NS}'>${nl}<DescribeLoadBalancersResult><LoadBalancers>` +
    `${members.join(nl)}</LoadBalancers></DescribeLoadBalancersResult>` +
    `<ResponseMetadata><RequestId>${rng.int(0, 1e9)}</RequestId></ResponseMetadata></DescribeLoadBalancersResponse>`
  );
}

function errorResponse(rng: Random, nl: string): string {
  return rng.chance(0.5)
    ? `<Response><Errors><Error>${field(rng, 'Code', 'InvalidInstanceID.NotFound')}${field(rng, 'Message')}</Error>` +
        `</Errors><RequestID>x</RequestID></Response>`
    : `<ErrorResponse xmlns="${ELB_NS}">${nl}<Error><Type>Sender</Type>${field(rng, 'Code', 'LoadBalancerNotFound')}` +
        `${field(rng, 'Message')}</Error></ErrorResponse>`;
}

/** Elements nested around the reader's depth limit. */
function nested(depth: number): string {
  return '<n>'.repeat(depth) + 'x' + '</n>'.repeat(depth);
}

function freeForm(rng: Random, nl: string, depth = 0): string {
  const name = rng.pick(NAMES);
  const attrs = [];
  const names: string[] = [];
  // Sometimes more attributes than the reader compares one by one (it keeps a hash set past 8), a name now and then
  // repeated (refused by both).
  const many = rng.chance(0.05);
  for (let i = many ? rng.int(9, 30) : rng.int(0, 3); i > 0; i--) {
    const q = rng.chance(0.5) ? '"' : "'";
    const name = many && names.length > 0 && rng.chance(0.02) ? rng.pick(names) : `${rng.pick(NAMES)}${i}`;
    names.push(name);
    attrs.push(` ${name}${rng.chance(0.1) ? ' = ' : '='}${q}${escape(value(rng), q)}${q}`);
  }
  if (rng.chance(0.2)) return `<${name}${attrs.join('')}${rng.chance(0.5) ? ' ' : ''}/>`;
  const parts = [];
  for (let i = rng.int(0, depth < 4 ? 4 : 0); i > 0; i--) {
    parts.push(rng.chance(0.5) ? freeForm(rng, nl, depth + 1) : text(rng, value(rng)));
  }
  return `<${name}${attrs.join('')}>${parts.join(rng.chance(0.5) ? nl : '')}</${name}${rng.chance(0.1) ? ' ' : ''}>`;
}

const SHAPES = [describeInstances, describeLoadBalancers, errorResponse, freeForm];
