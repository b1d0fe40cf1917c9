// Smoke test: the upstream AWS CCM (cloud-provider-aws v1.36.2) runs here, against moto with signature checks on and
// the test control plane, and initializes a Node from its EC2 instance: the peer the AWS plugin is compared with.
import { CoreV1Api, type V1Node } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { AwsPeerCCM, type Moto, startMoto } from '../../lab/peers/index.ts';
import { eventually } from '../../lab/process/index.ts';
import { adminKubeConfig } from '../../lab/controlplane/index.ts';

const EC2_VERSION = '2016-11-15';
const UNINITIALIZED = 'node.cloudprovider.kubernetes.io/uninitialized';

function xmlValue(body: string, tag: string): string {
  const value = new RegExp(`<${tag}>([^<]+)</${tag}>`).exec(body)?.[1];
  if (value === undefined) throw new Error(`no <${tag}> in ${body.slice(0, 300)}`);
  return value;
}

describe('the upstream AWS CCM against moto', () => {
  const info = inject('controlPlane');
  const core = adminKubeConfig(info).makeApiClient(CoreV1Api);
  let moto: Moto;
  let peer: AwsPeerCCM | undefined;
  let nodeName = '';
  let instanceID = '';

  async function ec2(params: Record<string, string>): Promise<string> {
    const res = await moto.query('ec2', { Version: EC2_VERSION, ...params });
    if (res.status !== 200) throw new Error(`moto ${params.Action} answered ${res.status}: ${res.body}`);
    return res.body;
  }

  beforeAll(async () => {
    moto = await startMoto();
    const vpcID = xmlValue(await ec2({ Action: 'CreateVpc', CidrBlock: '10.0.0.0/16' }), 'vpcId');
    const subnet = await ec2({
      Action: 'CreateSubnet',
      VpcId: vpcID,
      CidrBlock: '10.0.1.0/24',
      AvailabilityZone: 'us-east-1a',
    });
    const subnetID = xmlValue(subnet, 'subnetId');
    const ami = xmlValue(await ec2({ Action: 'DescribeImages', 'Owner.1': 'amazon' }), 'imageId');
    const run = await ec2({
      Action: 'RunInstances',
      ImageId: ami,
      MinCount: '1',
      MaxCount: '1',
      InstanceType: 't3.medium',
      SubnetId: subnetID,
      // With a cluster ID configured the CCM sees only the instances tagged for its cluster.
      'TagSpecification.1.ResourceType': 'instance',
      'TagSpecification.1.Tag.1.Key': 'kubernetes.io/cluster/kubernetes',
      'TagSpecification.1.Tag.1.Value': 'owned',
    });
    instanceID = xmlValue(run, 'instanceId');
    // As a kubelet without --provider-id registers it: named after the instance's private DNS name, tainted.
    nodeName = xmlValue(run, 'privateDnsName');
    await core.createNode({
      body: {
        metadata: { name: nodeName },
        spec: { taints: [{ key: UNINITIALIZED, value: 'true', effect: 'NoSchedule' }] },
      },
    });
    // Only the cloud-node controller: the control plane is shared, and the lifecycle controller would delete the
    // other tests' Nodes, which moto does not know.
    peer = new AwsPeerCCM({
      info,
      moto,
      vpcID,
      subnetID,
      args: ['--controllers=cloud-node-controller', '--leader-elect=false', '--configure-cloud-routes=false'],
    });
  });

  afterAll(async () => {
    await peer?.stop();
    if (nodeName !== '') await core.deleteNode({ name: nodeName }).catch(() => undefined);
    await moto?.stop();
  });

  it('initializes the Node with the instance’s providerID, labels and addresses', async () => {
    const node = await eventually(
      'the upstream AWS CCM to initialize the node',
      async (): Promise<V1Node | undefined> => {
        if (!peer?.process.running) throw new Error(`aws-ccm exited:\n${peer?.process.tail()}`);
        const n = await core.readNode({ name: nodeName });
        // The taint goes in the Node update, the addresses in a later status patch: wait for both.
        const initialized = !n.spec?.taints?.some((t) => t.key === UNINITIALIZED);
        return initialized && (n.status?.addresses?.length ?? 0) > 0 ? n : undefined;
      },
      60_000,
      250,
    ).catch((err: unknown) => {
      throw new Error(`${(err as Error).message}\naws-ccm log tail:\n${peer?.process.tail()}`);
    });
    expect(node.spec?.providerID).toBe(`aws:///us-east-1a/${instanceID}`);
    expect(node.metadata?.labels).toMatchObject({
      'node.kubernetes.io/instance-type': 't3.medium',
      'topology.kubernetes.io/zone': 'us-east-1a',
      'topology.kubernetes.io/region': 'us-east-1',
    });
    expect(node.status?.addresses).toEqual([
      { type: 'InternalIP', address: '10.0.1.4' },
      { type: 'InternalDNS', address: nodeName },
      { type: 'Hostname', address: nodeName },
    ]);
  });
});
