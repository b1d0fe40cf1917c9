// Every security group in moto with its inbound rules, normalized (groups by VPC and name, NodePorts by their Service
// port, descriptions by norm.text): an NLB's NodePorts are opened in the instances' groups, each rule described with
// the NLB's name (how either CCM knows its own), and must be closed again on deletion. moto launches an instance
// without SecurityGroupIds into the default VPC's default group, so all VPCs are read.
import { type AwsQuery, call } from '../../../../lab/peers/index.ts';
import type { Normalizer } from './elb-state.ts';
import { parseXml, select, textAt } from './xml-tree.ts';

/**
 * `<cluster-vpc|other-vpc>/<group name>` -> its inbound rules as `<protocol> <from>-<to> from <source>`, with
 * ` (<description>)` for a described CIDR rule, sorted.
 */
export async function securityGroupRules(
  query: AwsQuery,
  vpcId: string,
  norm: Normalizer,
): Promise<Record<string, string[]>> {
  const body = await call(query, 'ec2', { Action: 'DescribeSecurityGroups' });
  const groups = select(parseXml(body), '*/securityGroupInfo/item');
  const names = new Map(groups.map((g) => [textAt(g, 'groupId') ?? '', textAt(g, 'groupName') ?? '']));
  const out: Record<string, string[]> = {};
  for (const g of groups) {
    const rules: string[] = [];
    for (const p of select(g, 'ipPermissions/item')) {
      const ports = `${textAt(p, 'ipProtocol')} ${norm.port(textAt(p, 'fromPort') ?? '')}-${norm.port(textAt(p, 'toPort') ?? '')}`;
      for (const r of select(p, 'ipRanges/item')) {
        const description = textAt(r, 'description') ?? '';
        rules.push(`${ports} from ${textAt(r, 'cidrIp')}${description === '' ? '' : ` (${norm.text(description)})`}`);
      }
      for (const r of select(p, 'groups/item'))
        rules.push(`${ports} from group ${names.get(textAt(r, 'groupId') ?? '')}`);
    }
    const vpc = textAt(g, 'vpcId') === vpcId ? 'cluster-vpc' : 'other-vpc';
    out[`${vpc}/${textAt(g, 'groupName') ?? ''}`] = rules.sort();
  }
  return out;
}
