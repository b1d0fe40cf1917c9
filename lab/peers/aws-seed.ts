// A small AWS estate in moto for the AWS plugin's tests: a VPC whose main route table goes to an internet gateway (so
// its subnets are public), one subnet per zone tagged for the cluster's load balancers, the cluster's route table, and
// instances spread over the zones, tagged for the cluster. Every call goes through `query`, so the
// same seeding works against any moto (signed calls for the one with signature checks on).
export type AwsService = 'ec2' | 'elasticloadbalancing';

export type AwsQuery = (
  service: AwsService,
  params: Record<string, string>,
) => Promise<{ status: number; body: string }>;

export const EC2_VERSION = '2016-11-15';
export const ELBV2_VERSION = '2015-12-01';
/** An AMI moto ships. */
const IMAGE = 'ami-12c6146b';

export interface SeededInstance {
  id: string;
  privateDnsName: string;
  privateIp: string;
  zone: string;
  type: string;
}

export interface SeededCluster {
  vpcId: string;
  subnetIds: string[];
  routeTableId: string;
  instances: SeededInstance[];
}

/** The text of every <tag>...</tag> in an answer, in order (the answers seeded here have no nested same-name tags). */
export function xmlTexts(body: string, tag: string): string[] {
  return [...body.matchAll(new RegExp(`<${tag}>([^<]*)</${tag}>`, 'g'))].map((m) => m[1] as string);
}

export function xmlText(body: string, tag: string): string {
  const found = xmlTexts(body, tag)[0];
  if (found === undefined) throw new Error(`no <${tag}> in ${body.slice(0, 400)}`);
  return found;
}

/** One call that must succeed; its body. */
export async function call(query: AwsQuery, service: AwsService, params: Record<string, string>): Promise<string> {
  const version = service === 'ec2' ? EC2_VERSION : ELBV2_VERSION;
  const res = await query(service, { Version: version, ...params });
  if (res.status !== 200) throw new Error(`${service} ${params.Action} answered ${res.status}: ${res.body}`);
  return res.body;
}

export async function tagResource(query: AwsQuery, id: string, tags: Record<string, string>): Promise<void> {
  const params: Record<string, string> = { Action: 'CreateTags', 'ResourceId.1': id };
  Object.entries(tags).forEach(([k, v], i) => {
    params[`Tag.${i + 1}.Key`] = k;
    params[`Tag.${i + 1}.Value`] = v;
  });
  await call(query, 'ec2', params);
}

export async function seedCluster(
  query: AwsQuery,
  options: { cluster: string; zones: string[]; instancesPerZone: number; type?: string },
): Promise<SeededCluster> {
  const clusterTag = { [`kubernetes.io/cluster/${options.cluster}`]: 'owned' };
  const vpcId = xmlText(await call(query, 'ec2', { Action: 'CreateVpc', CidrBlock: '10.0.0.0/16' }), 'vpcId');
  const subnetIds: string[] = [];
  const instances: SeededInstance[] = [];
  // The nodes' security group, tagged for the cluster (where upstream opens an NLB's NodePorts): an instance launched
  // without one has none in moto's DescribeInstances.
  const group = await call(query, 'ec2', {
    Action: 'CreateSecurityGroup',
    GroupName: `${options.cluster}-nodes`,
    GroupDescription: 'the cluster nodes',
    VpcId: vpcId,
  });
  const securityGroupId = xmlText(group, 'groupId');
  await tagResource(query, securityGroupId, clusterTag);
  for (const [z, zone] of options.zones.entries()) {
    const subnet = await call(query, 'ec2', {
      Action: 'CreateSubnet',
      VpcId: vpcId,
      CidrBlock: `10.0.${z + 1}.0/24`,
      AvailabilityZone: zone,
    });
    const subnetId = xmlText(subnet, 'subnetId');
    subnetIds.push(subnetId);
    await tagResource(query, subnetId, { ...clusterTag, 'kubernetes.io/role/elb': '1' });
    for (let i = 0; i < options.instancesPerZone; i++) {
      const inst = await runInstance(query, subnetId, securityGroupId, options.type);
      // Tagged for the cluster as its nodes are: instances without the tag are no load balancer targets.
      await tagResource(query, inst.id, clusterTag);
      instances.push(inst);
    }
  }
  await routeToInternet(query, vpcId);
  const table = await call(query, 'ec2', { Action: 'CreateRouteTable', VpcId: vpcId });
  const routeTableId = xmlText(table, 'routeTableId');
  await tagResource(query, routeTableId, clusterTag);
  return { vpcId, subnetIds, routeTableId, instances };
}

/**
 * An internet gateway as the default route of the VPC's main table: an internet-facing load balancer goes only into
 * public subnets (their table routes to an igw-), as cloud-provider-aws places it.
 */
async function routeToInternet(query: AwsQuery, vpcId: string): Promise<void> {
  const igw = xmlText(await call(query, 'ec2', { Action: 'CreateInternetGateway' }), 'internetGatewayId');
  await call(query, 'ec2', { Action: 'AttachInternetGateway', InternetGatewayId: igw, VpcId: vpcId });
  const main = await call(query, 'ec2', {
    Action: 'DescribeRouteTables',
    'Filter.1.Name': 'vpc-id',
    'Filter.1.Value.1': vpcId,
    'Filter.2.Name': 'association.main',
    'Filter.2.Value.1': 'true',
  });
  await call(query, 'ec2', {
    Action: 'CreateRoute',
    RouteTableId: xmlText(main, 'routeTableId'),
    DestinationCidrBlock: '0.0.0.0/0',
    GatewayId: igw,
  });
}

/** A subnet of its own route table with no internet route (private), tagged for the cluster's load balancers. */
export async function privateSubnet(
  query: AwsQuery,
  options: { vpcId: string; cluster: string; cidr: string; zone: string },
): Promise<string> {
  const subnet = await call(query, 'ec2', {
    Action: 'CreateSubnet',
    VpcId: options.vpcId,
    CidrBlock: options.cidr,
    AvailabilityZone: options.zone,
  });
  const subnetId = xmlText(subnet, 'subnetId');
  await tagResource(query, subnetId, {
    [`kubernetes.io/cluster/${options.cluster}`]: 'owned',
    'kubernetes.io/role/elb': '1',
  });
  const table = xmlText(await call(query, 'ec2', { Action: 'CreateRouteTable', VpcId: options.vpcId }), 'routeTableId');
  await call(query, 'ec2', { Action: 'AssociateRouteTable', RouteTableId: table, SubnetId: subnetId });
  return subnetId;
}

export async function runInstance(
  query: AwsQuery,
  subnetId: string,
  securityGroupId: string,
  type = 'm5.large',
): Promise<SeededInstance> {
  const body = await call(query, 'ec2', {
    Action: 'RunInstances',
    ImageId: IMAGE,
    MinCount: '1',
    MaxCount: '1',
    InstanceType: type,
    SubnetId: subnetId,
    'SecurityGroupId.1': securityGroupId,
  });
  return {
    id: xmlText(body, 'instanceId'),
    privateDnsName: xmlText(body, 'privateDnsName'),
    privateIp: xmlText(body, 'privateIpAddress'),
    zone: xmlText(body, 'availabilityZone'),
    type,
  };
}

export async function setInstanceState(query: AwsQuery, id: string, action: 'StopInstances' | 'TerminateInstances') {
  await call(query, 'ec2', { Action: action, 'InstanceId.1': id });
}

/** What moto holds of ELBv2: load balancers, target groups and listeners (of every load balancer). */
export async function elbInventory(
  query: AwsQuery,
): Promise<{ loadBalancers: string[]; targetGroups: string[]; listeners: string[] }> {
  const lbs = await call(query, 'elasticloadbalancing', { Action: 'DescribeLoadBalancers' });
  const arns = xmlTexts(lbs, 'LoadBalancerArn');
  const tgs = await call(query, 'elasticloadbalancing', { Action: 'DescribeTargetGroups' });
  const listeners: string[] = [];
  for (const arn of arns) {
    const l = await call(query, 'elasticloadbalancing', { Action: 'DescribeListeners', LoadBalancerArn: arn });
    listeners.push(...xmlTexts(l, 'ListenerArn'));
  }
  return {
    loadBalancers: xmlTexts(lbs, 'LoadBalancerName'),
    targetGroups: xmlTexts(tgs, 'TargetGroupName'),
    listeners,
  };
}
