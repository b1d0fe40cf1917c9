// The Classic ELB differential's annotation scenario, run once per CCM against a fresh moto seeded alike: two Services
// on Classic ELBs with the listener, policy, security group and subnet annotations, then a subnet change, then
// deletion. `web`: a certificate on its https port only, HTTP back ends (HTTPS:443 and HTTP:80 listeners), an SSL
// negotiation policy, its own security group (security-groups) and an extra one. `api`: SSL on every port, proxy
// protocol, the extra group beside the managed one, and the subnets annotation, changed from one subnet to the other.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type AwsEnv, call, xmlText } from '../../../../lab/peers/index.ts';
import { flatten, type Snapshot } from '../../../support/parity/flatten.ts';
import {
  type ClassicContext,
  classicEnv,
  cleanup,
  createService,
  deleteServices,
  type Impl,
  JSON_PATCH,
  joinNode,
  nodeName,
  normalizer,
  type Running,
  settled,
  startImpl,
} from './classic-run.ts';
import { type ClassicState, groupRules } from './clb-state.ts';
import type { Corrections } from './moto-corrections.ts';
import { ccmFailure } from './ccm-failure.ts';

const A = 'service.beta.kubernetes.io/aws-load-balancer-';
export const SSL_POLICY = 'ELBSecurityPolicy-TLS-1-2-2017-01';
/** The groups the Services bring, made in the cluster's VPC before either CCM starts; not tagged for the cluster. */
export const BYO_GROUP = 'byo-web';
export const EXTRA_GROUP = 'extra-shared';

export interface TlsRun {
  snapshot: Snapshot;
  /** What is left of either Service's ELB, its own group and its rules after deletion. */
  left: string[];
  /** The rules of the groups the Services brought, and the rules naming them, after deletion. */
  broughtAfter: Record<string, string[]>;
  certificate: string;
  corrections: Corrections;
}

interface Seeded {
  byo: string;
  extra: string;
  certificate: string;
}

/** A self-signed certificate uploaded as an IAM server certificate (AWS checks that the ARN a listener names exists). */
export async function uploadCertificate(env: AwsEnv): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'wasm-ccm-cert-'));
  try {
    execFileSync(
      'openssl',
      ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=web.example'].concat([
        '-keyout',
        join(dir, 'key.pem'),
        '-out',
        join(dir, 'cert.pem'),
      ]),
      { stdio: 'ignore' },
    );
    const res = await env.moto.query('iam', {
      Action: 'UploadServerCertificate',
      Version: '2010-05-08',
      ServerCertificateName: 'web',
      CertificateBody: readFileSync(join(dir, 'cert.pem'), 'utf8'),
      PrivateKey: readFileSync(join(dir, 'key.pem'), 'utf8'),
    });
    if (res.status !== 200) throw new Error(`UploadServerCertificate answered ${res.status}: ${res.body}`);
    return xmlText(res.body, 'Arn');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A security group in the cluster VPC, not tagged for the cluster, letting `port` in from a documentation range. */
export async function makeGroup(env: AwsEnv, name: string, port: string): Promise<string> {
  const body = await call(env.query, 'ec2', {
    Action: 'CreateSecurityGroup',
    GroupName: name,
    GroupDescription: `brought by a Service (${name})`,
    VpcId: env.seeded.vpcId,
  });
  const id = xmlText(body, 'groupId');
  await call(env.query, 'ec2', {
    Action: 'AuthorizeSecurityGroupIngress',
    GroupId: id,
    'IpPermissions.1.IpProtocol': 'tcp',
    'IpPermissions.1.FromPort': port,
    'IpPermissions.1.ToPort': port,
    'IpPermissions.1.IpRanges.1.CidrIp': '203.0.113.0/24',
  });
  return id;
}

async function seed(env: AwsEnv): Promise<Seeded> {
  return {
    byo: await makeGroup(env, BYO_GROUP, '443'),
    extra: await makeGroup(env, EXTRA_GROUP, '8443'),
    certificate: await uploadCertificate(env),
  };
}

async function createTlsServices(run: Running, ctx: ClassicContext, s: Seeded): Promise<{ web: string; api: string }> {
  const web = await createService(
    run,
    ctx,
    'web',
    {
      [`${A}ssl-cert`]: s.certificate,
      [`${A}ssl-ports`]: 'https',
      [`${A}ssl-negotiation-policy`]: SSL_POLICY,
      [`${A}backend-protocol`]: 'http',
      [`${A}security-groups`]: s.byo,
      [`${A}extra-security-groups`]: s.extra,
    },
    [
      { name: 'http', port: 80, targetPort: 8080, nodePort: ctx.nodePorts[0], protocol: 'TCP' },
      { name: 'https', port: 443, targetPort: 8443, nodePort: ctx.nodePorts[1], protocol: 'TCP' },
    ],
  );
  const api = await createService(
    run,
    ctx,
    'api',
    {
      [`${A}ssl-cert`]: s.certificate,
      [`${A}proxy-protocol`]: '*',
      [`${A}extra-security-groups`]: s.extra,
      [`${A}subnets`]: run.env.seeded.subnetIds[0]!,
    },
    [{ name: 'tls', port: 8443, targetPort: 8443, nodePort: ctx.nodePorts[2], protocol: 'TCP' }],
  );
  return { web, api };
}

/** Every group's rules with both ELB names normalized ({lb} web's, {lb2} api's). */
async function rules(run: Running, ctx: ClassicContext, web: string, api: string): Promise<Record<string, string[]>> {
  const norm = normalizer(run.env, ctx, web);
  return groupRules(run.query, run.env.seeded.vpcId, { ...norm, text: (t) => norm.text(t).replaceAll(api, '{lb2}') });
}

/** The brought groups' own rules, and the rules in other groups that name them. */
function broughtRules(all: Record<string, string[]>): Record<string, string[]> {
  const brought = (text: string) => text.includes(BYO_GROUP) || text.includes(EXTRA_GROUP);
  return Object.fromEntries(
    Object.entries(all)
      .map(([g, rs]): [string, string[]] => [g, brought(g) ? rs : rs.filter(brought)])
      .filter(([g, rs]) => rs.length > 0 || brought(g)),
  );
}

const ready = (s: ClassicState) => s.instances.length === 2 && s.healthCheck.interval === '10';

export async function tlsScenario(impl: Impl, ctx: ClassicContext): Promise<TlsRun> {
  const env = await classicEnv();
  const out: Snapshot = new Map();
  let run: Running | undefined;
  try {
    const seeded = await seed(env);
    run = await startImpl(impl, ctx, env);
    for (const i of [0, 1]) await joinNode(run, i);
    const { web, api } = await createTlsServices(run, ctx, seeded);
    const made = {
      web: await settled(run, ctx, web, 'web made', (s) => ready(s) && s.listenerPolicies['443'] !== undefined),
      api: await settled(
        run,
        ctx,
        api,
        'api made',
        (s) => ready(s) && Object.keys(s.backendPolicies).length > 0,
        'api',
      ),
    };
    flatten(out, 'create/web', made.web.state);
    flatten(out, 'create/api', made.api.state);
    flatten(out, 'create/security-groups', await rules(run, ctx, web, api));
    const subnet = `/metadata/annotations/${`${A}subnets`.replaceAll('/', '~1')}`;
    await run.core.patchNamespacedService(
      {
        namespace: ctx.namespace,
        name: 'api',
        body: [{ op: 'replace', path: subnet, value: env.seeded.subnetIds[1] }],
      },
      JSON_PATCH,
    );
    const moved = await settled(run, ctx, api, 'api moved', (s) => s.subnets.join() === '{subnet-1}', 'api');
    flatten(out, 'subnet-change/api', moved.state);
    flatten(out, 'subnet-change/security-groups', await rules(run, ctx, web, api));
    const left = await deleteServices(
      run,
      ctx,
      new Map([
        ['web', web],
        ['api', api],
      ]),
    );
    const broughtAfter = broughtRules(await rules(run, ctx, web, api));
    return { snapshot: out, left, broughtAfter, certificate: seeded.certificate, corrections: run.corrections() };
  } catch (err) {
    throw ccmFailure(impl, err, run?.ccm.tail());
  } finally {
    await cleanup(
      run,
      env,
      ctx,
      [0, 1].map((i) => nodeName(env, i)),
    );
  }
}
