// The parts of the AWS parity estate beyond lab/peers' seed: the cases of upstream's subnet discovery, and the Nodes
// with their names. Of the seeded instances (two per zone, tagged for the cluster), 0-2 register as Nodes named by
// their private DNS names and 3 by its instance ID (a resource-based hostname); a fifth instance without the cluster
// tag registers by its instance ID too: both CCMs initialize it, and neither makes it a target.
import { type AwsEnv, call, runInstance, tagResource, xmlText } from '../../../../lab/peers/index.ts';

/** Targets of every target group: the tagged instances 0-3. */
export const TARGET_COUNT = 4;

/**
 * Subnet discovery's cases (public, by the main table): in us-east-1d another cluster's role-tagged subnet, which
 * neither CCM may use, and an untagged one, which both take ({subnet-3}, {subnet-4}).
 */
export async function discoverySubnets(env: AwsEnv): Promise<void> {
  const cases: Array<[string, Record<string, string>]> = [
    ['10.0.21.0/24', { 'kubernetes.io/cluster/another': 'owned', 'kubernetes.io/role/elb': '1' }],
    ['10.0.22.0/24', {}],
  ];
  for (const [cidr, tags] of cases) {
    const created = await call(env.query, 'ec2', {
      Action: 'CreateSubnet',
      VpcId: env.seeded.vpcId,
      CidrBlock: cidr,
      AvailabilityZone: 'us-east-1d',
    });
    const id = xmlText(created, 'subnetId');
    if (Object.keys(tags).length > 0) await tagResource(env.query, id, tags);
    env.seeded.subnetIds.push(id);
  }
}

/** A fifth instance in the first subnet with a Name but no cluster tag, appended to the seeded ones ({node-4}). */
export async function untaggedInstance(env: AwsEnv, cluster: string): Promise<void> {
  const groups = await call(env.query, 'ec2', {
    Action: 'DescribeSecurityGroups',
    'Filter.1.Name': 'group-name',
    'Filter.1.Value.1': `${cluster}-nodes`,
  });
  const inst = await runInstance(env.query, env.seeded.subnetIds[0]!, xmlText(groups, 'groupId'));
  await tagResource(env.query, inst.id, { Name: `node-${env.seeded.instances.length}` });
  env.seeded.instances.push(inst);
}

/** The Nodes' names, in the order of their instances. */
export function parityNodeNames(env: AwsEnv): string[] {
  const [a, b, c, d, untagged] = env.seeded.instances;
  return [a!.privateDnsName, b!.privateDnsName, c!.privateDnsName, d!.id, untagged!.id];
}
