// awsSigV4 credentials entries in values: each way the CCM refuses one at start (aws-sigv4-entry.ts,
// aws-credential-settings.ts), with the message `helm template` must fail with, and entries of each kind the chart
// and the CCM both accept (an access key the chart writes into its Secret, the chain's sources).
import type { BadCase, ValuesCase } from './refusals.cases.ts';

const EC2 = 'ec2.us-east-1.amazonaws.com';
const ELB = 'elasticloadbalancing.us-east-1.amazonaws.com';
const KEY = { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY' };
const AT = 'plugins.providers[0].credentials.entries[0]';

function aws(awsSigV4: Record<string, unknown>, fields: Record<string, unknown> = {}): Record<string, unknown> {
  const hosts = (fields.hosts as string[] | undefined) ?? [EC2, ELB];
  return {
    'plugins.providers': [
      {
        name: 'aws',
        source: { file: '/usr/lib/wasm-ccm/plugins/aws.wasm' },
        allowedHosts: hosts,
        credentials: { entries: [{ name: 'aws', hosts, ...fields, awsSigV4 }] },
      },
    ],
  };
}

export const awsBadCases: BadCase[] = [
  {
    what: 'an AWS key file name (the chart writes the files)',
    values: aws({ region: 'us-east-1', accessKeyIdFile: 'id' }),
    message: "additional properties 'accessKeyIdFile' not allowed",
  },
  {
    what: 'an AWS key without its secret',
    values: aws({ region: 'us-east-1', accessKeyId: 'AKIDEXAMPLE' }),
    message: 'secretAccessKey',
  },
  {
    what: 'an AWS key ID with a space',
    values: aws({ region: 'us-east-1', ...KEY, accessKeyId: 'AKID EXAMPLE' }),
    message: "at '/plugins/providers/0/credentials/entries/0/awsSigV4/accessKeyId'",
  },
  {
    what: 'an AWS secret with a space',
    values: aws({ region: 'us-east-1', ...KEY, secretAccessKey: 'wJalr XUtn' }),
    message: "at '/plugins/providers/0/credentials/entries/0/awsSigV4/secretAccessKey'",
  },
  {
    what: 'an AWS entry without a region',
    values: aws({ source: 'webIdentity' }),
    message: "missing property 'region'",
  },
  {
    what: 'an AWS key with another source',
    values: aws({ region: 'us-east-1', source: 'webIdentity', ...KEY }),
    message: `${AT}.awsSigV4: accessKeyId and secretAccessKey are for source static (or no source), not webIdentity`,
  },
  {
    what: 'source static without a key',
    values: aws({ region: 'us-east-1', source: 'static' }),
    message: `${AT}.awsSigV4.source: static needs accessKeyId and secretAccessKey`,
  },
  {
    what: 'a role ARN for the instance profile',
    values: aws({ region: 'us-east-1', source: 'instanceProfile', roleARN: 'arn:aws:iam::123456789012:role/ccm' }),
    message: `${AT}.awsSigV4.roleARN is for source webIdentity (or chain), not instanceProfile`,
  },
  {
    what: 'a metadata endpoint for web identity',
    values: aws({ region: 'us-east-1', source: 'webIdentity', instanceMetadataEndpoint: 'http://169.254.169.254' }),
    message: `${AT}.awsSigV4.instanceMetadataEndpoint is for source instanceProfile (or chain), not webIdentity`,
  },
  {
    what: 'an STS endpoint over plain http',
    values: aws({ region: 'us-east-1', stsEndpoint: 'http://sts.example' }),
    message: `${AT}.awsSigV4.stsEndpoint: "http://sts.example" must be https`,
  },
  {
    what: 'a metadata endpoint over plain http elsewhere',
    values: aws({ region: 'us-east-1', instanceMetadataEndpoint: 'http://metadata.example' }),
    message: `${AT}.awsSigV4.instanceMetadataEndpoint: "http://metadata.example": plain http only to the instance metadata service`,
  },
  {
    what: 'a host that names no signing service',
    values: aws({ region: 'us-east-1', ...KEY }, { hosts: ['aws.internal.example'] }),
    message: `${AT}.awsSigV4.service is required: host "aws.internal.example" is not <service>.<region>.amazonaws.com`,
  },
  {
    what: 'a host in another region',
    values: aws({ region: 'us-east-1', ...KEY }, { hosts: ['ec2.eu-west-1.amazonaws.com'] }),
    message: `${AT}: host "ec2.eu-west-1.amazonaws.com" is in region eu-west-1, not awsSigV4.region us-east-1`,
  },
  {
    what: 'a role ARN that is not one',
    values: aws({ region: 'us-east-1', roleARN: 'ccm-role' }),
    message: "at '/plugins/providers/0/credentials/entries/0/awsSigV4/roleARN'",
  },
];

export const awsGoodCases: ValuesCase[] = [
  {
    what: 'an AWS access key in values',
    values: aws({ region: 'us-east-1', ...KEY, sessionToken: 'FQoGZXIvYXdzEXAMPLE' }),
  },
  {
    what: 'AWS credentials from the chain (IRSA, Pod Identity, the instance profile)',
    values: aws({ region: 'us-east-1' }),
  },
  {
    what: 'AWS web identity with its role, token file and STS endpoint',
    values: aws({
      region: 'us-east-1',
      source: 'webIdentity',
      roleARN: 'arn:aws:iam::123456789012:role/ccm',
      webIdentityTokenFile: '/var/run/secrets/eks.amazonaws.com/serviceaccount/token',
      roleSessionName: 'wasm-ccm',
      stsEndpoint: 'https://sts.us-east-1.amazonaws.com',
    }),
  },
  {
    what: 'the AWS instance profile through a metadata endpoint',
    values: aws({ region: 'us-east-1', source: 'instanceProfile', instanceMetadataEndpoint: 'http://169.254.169.254' }),
  },
  {
    what: 'an AWS key for an emulator on loopback',
    values: aws({ region: 'us-east-1', service: 'ec2', ...KEY }, { hosts: ['127.0.0.1:5000'], insecure: true }),
  },
];
