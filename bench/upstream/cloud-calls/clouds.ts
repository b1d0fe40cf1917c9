// The two clouds bench:cloud-calls counts requests on, each read from its own records: devcloud's per-operation
// counters (one devcloud in this process for every round) and moto's request recording (a fresh moto per CCM run, so
// both CCMs meet the same estate and moto's per-request cost does not grow from run to run).
import type { Devcloud } from '../../../devcloud/src/index.ts';
import type { ControlPlaneInfo } from '../../../lab/controlplane/index.ts';
import { cloudRequestTotal, counterDelta, awsActions, type OpTotal } from '../../../lab/measure/index.ts';
import { type AwsEnv, call, privateSubnet, startAwsEnv, xmlTexts } from '../../../lab/peers/index.ts';
import type { BurstTarget } from '../../lib/burst-round.ts';
import { devcloudInstances } from '../../lib/cluster-load.ts';
import { startTopologyFront } from './topology-front.ts';
import { type Impl, startAwsCCM, startCCM } from '../../lib/start-ccm.ts';

export type CloudName = 'devcloud' | 'moto';

/** One CCM run's view of its cloud: readings to diff (M: whatever the cloud's records are read as) and the burst. */
export interface CloudRun<M> {
  /** A reading of the cloud's records now. */
  mark(): M;
  /** Cloud requests up to a reading. */
  totalAt(mark: M): number;
  /** Requests by operation (devcloud) or service:action (moto) between two readings. */
  between(from: M, to: M): Record<string, number>;
  target: BurstTarget;
  close(): Promise<void>;
}

export interface RunSpec {
  info: ControlPlaneInfo;
  impl: Impl;
  /** Unique per run: names the plugin config's directory, the round's Nodes (devcloud) and its subnet (moto). */
  label: string;
  /** The 0-based index of this run on this cloud. */
  index: number;
  flags: string[];
  main: string;
  nodeArgs: string[];
}

export function devcloudRun(cloud: Devcloud, spec: RunSpec): CloudRun<Record<string, OpTotal>> {
  return {
    mark: () => cloud.inventory().counters,
    totalAt: (m) => cloudRequestTotal(m),
    between: (from, to) => counterDelta(from, to),
    target: {
      start: () =>
        startCCM(spec.impl, {
          info: spec.info,
          cloud,
          flags: spec.flags,
          name: spec.label,
          main: spec.main,
          nodeArgs: spec.nodeArgs,
        }),
      instances: async (prefix, count) => devcloudInstances(cloud, prefix, count),
    },
    close: async () => undefined,
  };
}

const MOTO_CLUSTER = 'cloud-calls';
// A /20 per run, 10.0.16.0/20 up: 4,091 addresses each, and no run reuses an earlier run's private DNS names (its
// Nodes may still be going away).
const MAX_MOTO_RUNS = 15;

/** A reading of moto's log and of the front's own answers. */
export interface MotoMark {
  recorded: number;
  front: number;
}

/**
 * A fresh moto for one CCM run: a VPC tagged for the cluster, a subnet of its own, every request recorded, and the
 * front (topology-front.ts) both CCMs reach it through.
 */
export async function motoRun(spec: RunSpec): Promise<CloudRun<MotoMark>> {
  if (spec.index >= MAX_MOTO_RUNS) throw new Error(`moto: at most ${MAX_MOTO_RUNS} runs (rounds x 2) per invocation`);
  const aws = await startAwsEnv({
    cluster: MOTO_CLUSTER,
    zones: ['us-east-1a'],
    instancesPerZone: 0,
    moto: { recordRequests: true },
  });
  const closers: Array<() => Promise<void>> = [() => aws.close()];
  try {
    const cidr = `10.0.${16 * (spec.index + 1)}.0/20`;
    const subnetId = await privateSubnet(aws.query, {
      vpcId: aws.seeded.vpcId,
      cluster: MOTO_CLUSTER,
      cidr,
      zone: 'us-east-1a',
    });
    const front = await startTopologyFront(aws.moto.endpoint);
    closers.unshift(() => front.close());
    return {
      mark: () => ({ recorded: aws.moto.recordedCount(), front: front.answered() }),
      totalAt: (m) => m.recorded + m.front,
      between: (from, to) => {
        const out = awsActions(aws.moto.recorded().slice(from.recorded, to.recorded));
        const answered = to.front - from.front;
        if (answered > 0) out[TOPOLOGY] = (out[TOPOLOGY] ?? 0) + answered;
        return out;
      },
      target: {
        start: () =>
          startAwsCCM(spec.impl, {
            info: spec.info,
            aws,
            subnetID: subnetId,
            flags: spec.flags,
            main: spec.main,
            nodeArgs: spec.nodeArgs,
            frontPort: front.port,
          }),
        instances: (prefix, count) => runInstances(aws, subnetId, prefix, count),
      },
      close: () => closeAll(closers),
    };
  } catch (err) {
    await closeAll(closers);
    throw err;
  }
}

const TOPOLOGY = 'ec2:DescribeInstanceTopology';

async function closeAll(closers: ReadonlyArray<() => Promise<void>>): Promise<void> {
  for (const close of closers) await close();
}

/** `count` instances in one RunInstances, tagged for the cluster; their private DNS names (the Nodes' names). */
async function runInstances(aws: AwsEnv, subnetId: string, prefix: string, count: number): Promise<string[]> {
  const body = await call(aws.query, 'ec2', {
    Action: 'RunInstances',
    ImageId: 'ami-12c6146b',
    MinCount: String(count),
    MaxCount: String(count),
    InstanceType: 'm5.large',
    SubnetId: subnetId,
    'TagSpecification.1.ResourceType': 'instance',
    'TagSpecification.1.Tag.1.Key': `kubernetes.io/cluster/${aws.cluster}`,
    'TagSpecification.1.Tag.1.Value': 'owned',
    'TagSpecification.1.Tag.2.Key': 'Name',
    'TagSpecification.1.Tag.2.Value': prefix,
  });
  // An instance's name appears again in its network interface's description: one per instance, in order.
  const dnsNames = [...new Set(xmlTexts(body, 'privateDnsName').filter((n) => n !== ''))];
  if (dnsNames.length !== count) {
    throw new Error(`moto RunInstances: ${count} instances asked, ${dnsNames.length} private DNS names answered`);
  }
  return dnsNames;
}
