// Everything the AWS plugin's tests run against: moto with signature checks on, a seeded cluster in it, the cloud
// config (cloud-provider-aws's INI with ServiceOverride sections pointing at moto) and the host's credentials file
// with awsSigV4 entries holding moto's access key (in files, as a mounted Secret holds them), or naming another source
// of credentials (moto's STS, its instance metadata).
//
// moto serves every service on one port and tells them apart by the signature's service, and a credentials entry
// signs for one service: EC2 is reached as 127.0.0.1:<port> and ELBv2 as localhost:<port>, one entry each.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type AwsQuery, type SeededCluster, seedCluster } from './aws-seed.ts';
import { type Moto, type MotoOptions, startMoto } from './moto.ts';
import { builtPlugin } from '../plugins/index.ts';

export const AWS_FIXTURE = new URL('../../plugins/aws/conformance/fixture.yaml', import.meta.url).pathname;

export interface AwsEnv {
  moto: Moto;
  /** The directory of the credentials file and the files it names. */
  dir: string;
  query: AwsQuery;
  cluster: string;
  seeded: SeededCluster;
  cloudConfig: string;
  cloudConfigFile: string;
  credentialsFile: string;
  allowedHosts: string[];
  close(): Promise<void>;
}

export interface AwsEnvOptions {
  cluster: string;
  zones?: string[];
  instancesPerZone?: number;
  moto?: MotoOptions;
  /**
   * The awsSigV4 fields of both entries but region and service (default: the key files of moto's IAM user), called
   * once moto is seeded; `dir` is the credentials file's directory, where the fields' files go.
   */
  credentials?: (moto: Moto, dir: string) => Promise<Record<string, unknown>>;
  /** Whether the cloud config names Region and Zone (default true); without, the plugin takes the host's. */
  placementInConfig?: boolean;
}

export async function startAwsEnv(options: AwsEnvOptions): Promise<AwsEnv> {
  const moto = await startMoto(options.moto);
  const dir = mkdtempSync(join(tmpdir(), 'wasm-ccm-aws-'));
  try {
    const query: AwsQuery = (service, params) => moto.query(service, params);
    const seeded = await seedCluster(query, {
      cluster: options.cluster,
      zones: options.zones ?? ['us-east-1a', 'us-east-1b'],
      instancesPerZone: options.instancesPerZone ?? 2,
    });
    const port = new URL(moto.endpoint).port;
    const ec2Host = `127.0.0.1:${port}`;
    const elbHost = `localhost:${port}`;
    const cloudConfig = [
      '[Global]',
      ...(options.placementInConfig === false ? [] : [`Region = ${moto.region}`, `Zone = ${moto.region}a`]),
      `VPC = ${seeded.vpcId}`,
      // No KubernetesClusterID: tags are read and written with each call's cluster name (--cluster-name).
      '[ServiceOverride "1"]',
      'Service = ec2',
      `Region = ${moto.region}`,
      `URL = http://${ec2Host}`,
      `SigningRegion = ${moto.region}`,
      '[ServiceOverride "2"]',
      'Service = elasticloadbalancing',
      `Region = ${moto.region}`,
      `URL = http://${elbHost}`,
      `SigningRegion = ${moto.region}`,
      '',
    ].join('\n');
    const cloudConfigFile = join(dir, 'cloud.conf');
    writeFileSync(cloudConfigFile, cloudConfig);
    writeFileSync(join(dir, 'access-key-id'), moto.accessKey.accessKeyId);
    writeFileSync(join(dir, 'secret-access-key'), moto.accessKey.secretAccessKey);
    const fields = options.credentials
      ? await options.credentials(moto, dir)
      : { accessKeyIdFile: 'access-key-id', secretAccessKeyFile: 'secret-access-key' };
    // moto serves plain http on loopback.
    const entry = (name: string, host: string, service: string) => ({
      name,
      hosts: [host],
      insecure: true,
      awsSigV4: { ...fields, region: moto.region, service },
    });
    const credentialsFile = join(dir, 'credentials.json');
    const credentials = [entry('ec2', ec2Host, 'ec2'), entry('elbv2', elbHost, 'elasticloadbalancing')];
    writeFileSync(credentialsFile, JSON.stringify({ credentials }));
    return {
      moto,
      dir,
      query,
      cluster: options.cluster,
      seeded,
      cloudConfig,
      cloudConfigFile,
      credentialsFile,
      allowedHosts: [ec2Host, elbHost],
      close: async () => {
        await moto.stop();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (err) {
    await moto.stop();
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
}

/** wasm-ccm's flags for the AWS plugin against this environment: the plugin, its cloud config and credentials. */
export function awsPluginArgs(env: AwsEnv): string[] {
  return [
    '--cloud-provider=aws',
    `--plugin=${builtPlugin('aws')}`,
    `--cloud-config=${env.cloudConfigFile}`,
    `--plugin-credentials=${env.credentialsFile}`,
    `--plugin-allowed-hosts=${env.allowedHosts.join(',')}`,
  ];
}
