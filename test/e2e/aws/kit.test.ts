// `wasm-ccm plugin test` passes the AWS plugin against moto with signature checks on, with the fixture beside the
// plugin (plugins/aws/conformance/fixture.yaml), and leaves no load balancer, target group or route behind.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runPluginTest } from '../../../host/src/cli/plugin-test.ts';
import {
  call,
  elbInventory,
  setInstanceState,
  xmlTexts,
  AWS_FIXTURE,
  type AwsEnv,
  startAwsEnv,
} from '../../../lab/peers/index.ts';
import { builtPlugin } from '../../../lab/plugins/index.ts';

let env: AwsEnv;

beforeAll(async () => {
  env = await startAwsEnv({ cluster: 'conformance' });
  const byName = (name: string) => env.seeded.instances.find((i) => i.privateDnsName === name)!;
  await setInstanceState(env.query, byName('ip-10-0-1-5.ec2.internal').id, 'StopInstances');
  await setInstanceState(env.query, byName('ip-10-0-2-5.ec2.internal').id, 'TerminateInstances');
}, 120_000);

afterAll(async () => {
  await env?.close();
});

describe('wasm-ccm plugin test: aws', () => {
  it('passes every check of the declared capabilities and leaves moto clean', async () => {
    let out = '';
    let err = '';
    const code = await runPluginTest(
      [
        `--plugin=${builtPlugin('aws')}`,
        `--fixture=${AWS_FIXTURE}`,
        `--cloud-config=${env.cloudConfigFile}`,
        `--credentials=${env.credentialsFile}`,
        `--allowed-hosts=${env.allowedHosts.join(',')}`,
      ],
      { stdout: (t) => (out += t), stderr: (t) => (err += t) },
    );
    expect(out).not.toMatch(/^FAIL/m);
    expect(err).toBe('');
    expect(code).toBe(0);
    expect(out).toMatch(/^wasm-ccm plugin test: aws 1\.0\.0/);
    expect(out).toMatch(/checks: \d+ passed, 0 failed, \d+ skipped in [\d.]+ s — PASSED/);
    expect(out).toMatch(/^pass +loadBalancer: ensureLoadBalancer is idempotent/m);
    expect(out).toMatch(/^pass +routes: /m);
    expect(out).toMatch(/^pass +loadBalancer: bad annotation: Invalid naming it/m);
    expect(out).toMatch(/^skip \(not probed\) +loadBalancer: cloud: a repeated ensure adds none +ELBv2's/m);
    expect(out).toMatch(/^not probed \(backends\): ELBv2 keeps the backends per target group/m);
    expect(await elbInventory(env.query)).toEqual({ loadBalancers: [], targetGroups: [], listeners: [] });
    const table = await call(env.query, 'ec2', {
      Action: 'DescribeRouteTables',
      'RouteTableId.1': env.seeded.routeTableId,
    });
    expect(xmlTexts(table, 'instanceId')).toEqual([]);
  });
});
