// What moto holds for one Service's network load balancer, read through ELBv2's describe calls and normalized so two
// motos compare: instance IDs become the seeded instances' Name tags, the Service UID, VPC and subnet IDs become
// placeholders, and a port equal to the Service's NodePort becomes "nodePort:<service port>".
import { type AwsQuery, call } from '../../../../lab/peers/index.ts';
import { type XmlNode, parseXml, select, textAt } from './xml-tree.ts';

export interface Normalizer {
  /** Replaces every cloud-assigned ID in a string by its stable name. */
  text(s: string): string;
  /** A port as the Service sees it: a NodePort is named after its Service port. */
  port(p: string): string;
}

export interface TargetGroupState {
  name: string;
  protocol: string;
  port: string;
  targetType: string;
  healthCheck: Record<string, string | undefined>;
  targets: string[];
  tags: Record<string, string>;
}

export interface LoadBalancerState {
  name: string;
  dnsName: string;
  scheme: string;
  type: string;
  ipAddressType: string;
  zones: string[];
  tags: Record<string, string>;
  /** The attributes either CCM sets (cross-zone, access logs); "(unset)" when moto holds none. */
  attributes: Record<string, string>;
  listeners: Array<{
    protocol: string;
    port: string;
    action: string;
    targetGroup: string;
    certificate: string;
    sslPolicy: string;
  }>;
  targetGroups: TargetGroupState[];
}

const ELB = 'elasticloadbalancing';

/** An NLB DNS name with moto's random part replaced (`a{uid}-<id>.elb.us-east-1.amazonaws.com`). */
export function dnsShape(norm: Normalizer, dnsName: string): string {
  return norm.text(dnsName).replace(/-[0-9a-z]+\.elb\./, '-<id>.elb.');
}

/** The load balancer named `name`, or undefined when moto has none. */
export async function loadBalancerState(
  query: AwsQuery,
  name: string,
  norm: Normalizer,
): Promise<LoadBalancerState | undefined> {
  const res = await query(ELB, { Action: 'DescribeLoadBalancers', Version: '2015-12-01', 'Names.member.1': name });
  if (res.body.includes('LoadBalancerNotFound')) return undefined;
  if (res.status !== 200) throw new Error(`DescribeLoadBalancers answered ${res.status}: ${res.body}`);
  const lb = select(parseXml(res.body), '*/*/LoadBalancers/member')[0] as XmlNode;
  const arn = textAt(lb, 'LoadBalancerArn') as string;
  const groups = select(
    parseXml(await call(query, ELB, { Action: 'DescribeTargetGroups', LoadBalancerArn: arn })),
    '*/*/TargetGroups/member',
  );
  const groupNames = new Map(
    groups.map((g) => [textAt(g, 'TargetGroupArn') as string, textAt(g, 'TargetGroupName') as string]),
  );
  const listeners = select(
    parseXml(await call(query, ELB, { Action: 'DescribeListeners', LoadBalancerArn: arn })),
    '*/*/Listeners/member',
  );
  return {
    name: norm.text(name),
    dnsName: dnsShape(norm, textAt(lb, 'DNSName') ?? ''),
    scheme: textAt(lb, 'Scheme') ?? '',
    type: textAt(lb, 'Type') ?? '',
    ipAddressType: textAt(lb, 'IpAddressType') ?? '',
    zones: select(lb, 'AvailabilityZones/member')
      .map((z) => `${textAt(z, 'ZoneName')} ${norm.text(textAt(z, 'SubnetId') ?? '')}`)
      .sort(),
    tags: await tagsOf(query, arn),
    attributes: await attributesOf(query, arn),
    listeners: listeners.map((l) => ({
      protocol: textAt(l, 'Protocol') ?? '',
      port: textAt(l, 'Port') ?? '',
      action: textAt(l, 'DefaultActions/member/Type') ?? '',
      targetGroup: groupNames.get(textAt(l, 'DefaultActions/member/TargetGroupArn') ?? '') ?? '(not this NLB’s)',
      certificate: textAt(l, 'Certificates/member/CertificateArn') ?? '',
      sslPolicy: textAt(l, 'SslPolicy') ?? '',
    })),
    targetGroups: await Promise.all(groups.map((g) => targetGroupState(query, g, norm))),
  };
}

async function targetGroupState(query: AwsQuery, group: XmlNode, norm: Normalizer): Promise<TargetGroupState> {
  const arn = textAt(group, 'TargetGroupArn') as string;
  const health = parseXml(await call(query, ELB, { Action: 'DescribeTargetHealth', TargetGroupArn: arn }));
  const targets = select(health, '*/*/TargetHealthDescriptions/member/Target').map(
    (t) => `${norm.text(textAt(t, 'Id') ?? '')}:${norm.port(textAt(t, 'Port') ?? '')}`,
  );
  const hc = (field: string) => textAt(group, field);
  return {
    name: textAt(group, 'TargetGroupName') ?? '',
    protocol: hc('Protocol') ?? '',
    port: norm.port(hc('Port') ?? ''),
    targetType: hc('TargetType') ?? '',
    healthCheck: {
      protocol: hc('HealthCheckProtocol'),
      port: norm.port(hc('HealthCheckPort') ?? ''),
      path: hc('HealthCheckPath'),
      intervalSeconds: hc('HealthCheckIntervalSeconds'),
      timeoutSeconds: hc('HealthCheckTimeoutSeconds'),
      healthyThreshold: hc('HealthyThresholdCount'),
      unhealthyThreshold: hc('UnhealthyThresholdCount'),
    },
    targets: targets.sort(),
    tags: await tagsOf(query, arn),
  };
}

const ATTRIBUTES = ['load_balancing.cross_zone.enabled', 'access_logs.s3.enabled'];

async function attributesOf(query: AwsQuery, arn: string): Promise<Record<string, string>> {
  const body = await call(query, ELB, { Action: 'DescribeLoadBalancerAttributes', LoadBalancerArn: arn });
  const attrs = select(parseXml(body), '*/*/Attributes/member');
  const values = new Map(attrs.map((a) => [textAt(a, 'Key') ?? '', textAt(a, 'Value') ?? '']));
  return Object.fromEntries(ATTRIBUTES.map((k) => [k, values.get(k) ?? '(unset)']));
}

async function tagsOf(query: AwsQuery, arn: string): Promise<Record<string, string>> {
  const body = await call(query, ELB, { Action: 'DescribeTags', 'ResourceArns.member.1': arn });
  const tags = select(parseXml(body), '*/*/TagDescriptions/member/Tags/member');
  return Object.fromEntries(tags.map((t) => [textAt(t, 'Key') ?? '', textAt(t, 'Value') ?? '']));
}
