// What moto holds for a Classic ELB, read through the 2012-06-01 API and normalized with the same Normalizer as the
// NLB state (instance, VPC and subnet IDs to stable names, NodePorts to "nodePort:<service port>"), and the security
// groups' names for their IDs, so two motos compare.
import { type AwsQuery, call } from '../../../../lab/peers/index.ts';
import type { Normalizer } from './elb-state.ts';
import { securityGroupRules } from './sg-state.ts';
import { parseXml, select, textAt, type XmlNode } from './xml-tree.ts';

export const ELB_VERSION = '2012-06-01';
const ELB = 'elasticloadbalancing';

export interface ClassicState {
  name: string;
  dnsName: string;
  scheme: string;
  /** `<protocol>:<port> -> <instance protocol>:<instance port>` (and ` cert=<ARN>`), sorted. */
  listeners: string[];
  /** Load balancer port -> the listener's policies; back-end (instance) port -> its policies (none: left out). */
  listenerPolicies: Record<string, string[]>;
  backendPolicies: Record<string, string[]>;
  /** Policy name -> `<type> <attribute>=<value>,...`. */
  policies: Record<string, string>;
  healthCheck: Record<string, string | undefined>;
  instances: string[];
  securityGroups: string[];
  subnets: string[];
  tags: Record<string, string>;
  attributes: Record<string, string | undefined>;
}

/** A Classic ELB DNS name with its random part (AWS: `<name>-<id>.<region>.elb.amazonaws.com`; moto has none) replaced. */
export function classicDnsShape(norm: Normalizer, dnsName: string): string {
  return norm.text(dnsName).replace(/-[0-9a-z]+\.([a-z0-9-]+)\.elb\.amazonaws\.com$/, '-<id>.$1.elb.amazonaws.com');
}

/** Every Classic ELB's name. */
export async function classicNames(query: AwsQuery): Promise<string[]> {
  const body = await call(query, ELB, { Action: 'DescribeLoadBalancers', Version: ELB_VERSION });
  return select(parseXml(body), '*/*/LoadBalancerDescriptions/member').map((m) => textAt(m, 'LoadBalancerName') ?? '');
}

/** Security group ID -> name, for the groups of an ELB. */
async function groupNames(query: AwsQuery): Promise<Map<string, string>> {
  const body = await call(query, 'ec2', { Action: 'DescribeSecurityGroups' });
  return new Map(
    select(parseXml(body), '*/securityGroupInfo/item').map((g) => [
      textAt(g, 'groupId') ?? '',
      textAt(g, 'groupName') ?? '',
    ]),
  );
}

/** The Classic ELB named `name`, or undefined when moto has none. */
export async function classicState(query: AwsQuery, name: string, norm: Normalizer): Promise<ClassicState | undefined> {
  const res = await query(ELB, {
    Action: 'DescribeLoadBalancers',
    Version: ELB_VERSION,
    'LoadBalancerNames.member.1': name,
  });
  if (res.body.includes('LoadBalancerNotFound')) return undefined;
  if (res.status !== 200) throw new Error(`DescribeLoadBalancers answered ${res.status}: ${res.body}`);
  const lb = select(parseXml(res.body), '*/*/LoadBalancerDescriptions/member')[0];
  if (lb === undefined) return undefined;
  const names = await groupNames(query);
  const hc = (field: string) => textAt(lb, `HealthCheck/${field}`);
  const tagsBody = await call(query, ELB, {
    Action: 'DescribeTags',
    Version: ELB_VERSION,
    'LoadBalancerNames.member.1': name,
  });
  const tags = select(parseXml(tagsBody), '*/*/TagDescriptions/member/Tags/member');
  const attrBody = await call(query, ELB, {
    Action: 'DescribeLoadBalancerAttributes',
    Version: ELB_VERSION,
    LoadBalancerName: name,
  });
  const attrs = select(parseXml(attrBody), '*/*/LoadBalancerAttributes')[0];
  const policyBody = await call(query, ELB, {
    Action: 'DescribeLoadBalancerPolicies',
    Version: ELB_VERSION,
    LoadBalancerName: name,
  });
  const policyNames = (el: XmlNode) => select(el, 'PolicyNames/member').map((m) => m.text.trim());
  const attr = (path: string) => (attrs === undefined ? undefined : textAt(attrs, path));
  return {
    name: norm.text(name),
    dnsName: classicDnsShape(norm, textAt(lb, 'DNSName') ?? ''),
    scheme: textAt(lb, 'Scheme') ?? '',
    listeners: select(lb, 'ListenerDescriptions/member/Listener')
      .map(
        (l) =>
          `${(textAt(l, 'Protocol') ?? '').toUpperCase()}:${textAt(l, 'LoadBalancerPort')} -> ` +
          `${(textAt(l, 'InstanceProtocol') ?? '').toUpperCase()}:${norm.port(textAt(l, 'InstancePort') ?? '')}` +
          (textAt(l, 'SSLCertificateId') ? ` cert=${textAt(l, 'SSLCertificateId')}` : ''),
      )
      .sort(),
    listenerPolicies: Object.fromEntries(
      select(lb, 'ListenerDescriptions/member')
        .map((d): [string, string[]] => [textAt(d, 'Listener/LoadBalancerPort') ?? '', policyNames(d)])
        .filter(([, p]) => p.length > 0),
    ),
    backendPolicies: Object.fromEntries(
      select(lb, 'BackendServerDescriptions/member')
        .map((d): [string, string[]] => [norm.port(textAt(d, 'InstancePort') ?? ''), policyNames(d)])
        .filter(([, p]) => p.length > 0),
    ),
    policies: Object.fromEntries(
      select(parseXml(policyBody), '*/*/PolicyDescriptions/member').map((p) => [
        textAt(p, 'PolicyName') ?? '',
        `${textAt(p, 'PolicyTypeName')} ` +
          select(p, 'PolicyAttributeDescriptions/member')
            .map((a) => `${textAt(a, 'AttributeName')}=${textAt(a, 'AttributeValue')}`)
            .join(','),
      ]),
    ),
    healthCheck: {
      target: norm.text(hc('Target') ?? '').replace(/:(\d+)/, (_m, p: string) => `:${norm.port(p)}`),
      interval: hc('Interval'),
      timeout: hc('Timeout'),
      healthyThreshold: hc('HealthyThreshold'),
      unhealthyThreshold: hc('UnhealthyThreshold'),
    },
    // A set, as AWS keeps it: moto appends an instance a second time when two registrations of it overlap (the
    // service controller's ensure and a node sync of the same Service can run at once).
    instances: [...new Set(select(lb, 'Instances/member').map((i) => norm.text(textAt(i, 'InstanceId') ?? '')))].sort(),
    securityGroups: select(lb, 'SecurityGroups/member').map((g) =>
      norm.text(names.get(g.text.trim()) ?? '(unknown group)'),
    ),
    subnets: select(lb, 'Subnets/member')
      .map((s) => norm.text(s.text.trim()))
      .sort(),
    tags: Object.fromEntries(tags.map((t) => [textAt(t, 'Key') ?? '', norm.text(textAt(t, 'Value') ?? '')])),
    attributes: {
      accessLog: attr('AccessLog/Enabled'),
      connectionDraining: attr('ConnectionDraining/Enabled'),
      connectionDrainingTimeout: attr('ConnectionDraining/Timeout'),
      idleTimeout: attr('ConnectionSettings/IdleTimeout'),
      crossZone: attr('CrossZoneLoadBalancing/Enabled'),
    },
  };
}

/** securityGroupRules with the group names normalized too (a Classic ELB's group is named after the ELB). */
export async function groupRules(query: AwsQuery, vpcId: string, norm: Normalizer): Promise<Record<string, string[]>> {
  const rules = await securityGroupRules(query, vpcId, norm);
  return Object.fromEntries(
    Object.entries(rules).map(([group, rs]) => [norm.text(group), rs.map((r) => norm.text(r)).sort()]),
  );
}
