// The upstream AWS cloud-controller-manager (cloud-provider-aws's aws-cloud-controller-manager, built by
// scripts/build-aws-peer.sh) as a child process against moto: every AWS API it uses goes to moto through
// [ServiceOverride] sections, signed with moto's key (moto checks the signatures), and the instance metadata service
// is never reached (see lab/peers/README.md for why each setting is there).
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cacheDir, type ControlPlaneInfo } from '../controlplane/index.ts';
import { ManagedProcess } from '../process/index.ts';
import type { Moto } from './moto.ts';
import { upstreamCCMArgs } from './peer-ccm.ts';

export function awsPeerBinaryPath(): string {
  return join(cacheDir(), 'bin', 'aws-ccm');
}

export interface AwsPeerCCMOptions {
  info: ControlPlaneInfo;
  moto: Moto;
  /** The cluster's VPC and a subnet of it (for load balancers): with them the CCM needs no instance of its own. */
  vpcID: string;
  subnetID: string;
  /** The cluster ID of `kubernetes.io/cluster/<id>` tags (default kubernetes). */
  clusterID?: string;
  /** Where every AWS API is reached (default moto's endpoint): a pass-through that corrects moto's answers. */
  endpoint?: string;
  /** Flags beyond the cloud provider's (e.g. --controllers=..., --cluster-cidr=..., --configure-cloud-routes=false). */
  args: readonly string[];
  /** More [Global] lines of the cloud config (e.g. `ElbSecurityGroup = sg-...`). */
  global?: readonly string[];
}

// The services the CCM builds clients for, by the AWS SDK's service ID, with their signing names.
const SERVICES: Array<[string, string]> = [
  ['EC2', 'ec2'],
  ['Elastic Load Balancing', 'elasticloadbalancing'],
  ['Elastic Load Balancing v2', 'elasticloadbalancing'],
  ['KMS', 'kms'],
];

/** The cloud config (gcfg, INI-like): region, VPC and subnet given, every service at moto. */
export function awsPeerCloudConfig(options: Omit<AwsPeerCCMOptions, 'info' | 'args'>): string {
  const { moto } = options;
  const lines = [
    '[Global]',
    `Region = ${moto.region}`,
    `VPC = ${options.vpcID}`,
    `SubnetID = ${options.subnetID}`,
    `KubernetesClusterID = ${options.clusterID ?? 'kubernetes'}`,
    ...(options.global ?? []),
  ];
  SERVICES.forEach(([service, signingName], i) => {
    lines.push(
      `[ServiceOverride "${i + 1}"]`,
      `Service = ${service}`,
      `Region = ${moto.region}`,
      `URL = ${options.endpoint ?? moto.endpoint}`,
      `SigningRegion = ${moto.region}`,
      `SigningName = ${signingName}`,
    );
  });
  // The instance metadata client is made (and asked for its identity document) at start whatever the config says:
  // pointed at a closed loopback port, and disabled by AWS_EC2_METADATA_DISABLED as well.
  lines.push(
    `[ServiceOverride "${SERVICES.length + 1}"]`,
    'Service = ec2imds',
    `Region = ${moto.region}`,
    'URL = http://127.0.0.1:1',
    `SigningRegion = ${moto.region}`,
  );
  return `${lines.join('\n')}\n`;
}

export class AwsPeerCCM {
  readonly process: ManagedProcess;
  readonly dir: string;

  constructor(options: AwsPeerCCMOptions) {
    const path = awsPeerBinaryPath();
    if (!existsSync(path)) {
      throw new Error(`the upstream AWS CCM is not built: expected ${path}. Run 'npm run build:aws-peer'.`);
    }
    this.dir = mkdtempSync(join(options.info.dir, 'aws-peer-'));
    const config = join(this.dir, 'cloud.conf');
    writeFileSync(config, awsPeerCloudConfig(options));
    const none = join(this.dir, 'none');
    this.process = new ManagedProcess(
      'aws-ccm',
      path,
      ['--cloud-provider=aws', `--cloud-config=${config}`, ...upstreamCCMArgs(options.info), ...options.args],
      {
        logPath: join(this.dir, 'aws-ccm.log'),
        // Only what it needs: the key moto accepts, and no other source of credentials or metadata.
        env: {
          PATH: process.env.PATH,
          HOME: this.dir,
          AWS_ACCESS_KEY_ID: options.moto.accessKey.accessKeyId,
          AWS_SECRET_ACCESS_KEY: options.moto.accessKey.secretAccessKey,
          AWS_EC2_METADATA_DISABLED: 'true',
          AWS_CONFIG_FILE: none,
          AWS_SHARED_CREDENTIALS_FILE: none,
        },
      },
    );
  }

  async stop(): Promise<number | null> {
    await this.process.stop(30_000);
    return this.process.exited;
  }
}
