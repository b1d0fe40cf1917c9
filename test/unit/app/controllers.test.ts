// buildControllers: which controllers run for the enabled set and what the provider serves, each with its own client
// and event recorder named as upstream names them, and a warning for each the provider cannot serve.
import { Registry } from 'prom-client';
import { describe, expect, it, vi } from 'vitest';
import { buildControllers, type ControllerContext } from '../../../host/src/app/controllers.ts';
import { sharedInformers } from '../../../host/src/app/informers.ts';
import type { LoadBalancer } from '../../../host/src/cloudprovider/index.ts';
import { KubeClient } from '../../../host/src/kube/client/client.ts';
import type { EventRecorder } from '../../../host/src/kube/events/recorder.ts';
import { createJsonLineLogger } from '../../../host/src/log/logger.ts';
import { parseCommandLine } from '../../../host/src/options/ccm-options.ts';
import { FakeProvider, type FakeProviderOptions } from '../../support/fake-provider.ts';

interface LogRecord {
  level: string;
  msg: string;
}

function setup(
  argv: string[],
  capabilities: FakeProviderOptions['capabilities'],
  extra: Partial<ControllerContext> = {},
) {
  const parsed = parseCommandLine(['--cloud-provider=fake', ...argv]);
  if (parsed.kind !== 'run') throw new Error('expected options to run with');
  // Never connected: nothing here runs a controller.
  const client = new KubeClient({
    server: 'https://127.0.0.1:1',
    authHeaders: async () => ({}),
    transport: () => Promise.reject(new Error('this test never connects')),
  });
  const clientNames: string[] = [];
  vi.spyOn(client, 'forController').mockImplementation((name: string) => {
    clientNames.push(`controller:${name}`);
    return client;
  });
  vi.spyOn(client, 'forServiceAccount').mockImplementation((name: string) => {
    clientNames.push(`serviceAccount:${name}`);
    return client;
  });
  const records: LogRecord[] = [];
  const logger = createJsonLineLogger({ write: (line) => records.push(JSON.parse(line) as LogRecord), level: 'debug' });
  const recorders: EventRecorder[] = [];
  const ctx: ControllerContext = {
    options: parsed.options,
    client,
    informers: sharedInformers(client, logger),
    provider: new FakeProvider({ capabilities }),
    logger,
    registry: new Registry(),
    leaseFresh: () => true,
    recorders,
    ...extra,
  };
  const controllers = buildControllers(ctx);
  // The recorder's component is the source of its events: what the table must keep as upstream names it.
  const components = recorders.map((r) => (r as unknown as { component: string }).component);
  return { names: controllers.map((c) => c.name), clientNames, components, records };
}

const withoutDebug = (records: LogRecord[]): LogRecord[] => records.filter((r) => r.level !== 'debug');

describe('buildControllers', () => {
  it('starts all four for a provider serving everything, each with its own client and recorder', () => {
    const built = setup(['--cluster-cidr=10.0.0.0/16'], ['instancesV2', 'loadBalancer', 'routes']);
    expect(built.names).toEqual(['cloud-node', 'cloud-node-lifecycle', 'service', 'route']);
    expect(built.clientNames).toEqual([
      'controller:node-controller',
      'controller:node-controller',
      'controller:service-controller',
      'controller:route-controller',
    ]);
    expect(built.components).toEqual([
      'cloud-node-controller',
      'cloud-node-lifecycle-controller',
      'service-controller',
      'route-controller',
    ]);
    expect(withoutDebug(built.records)).toEqual([]);
  });

  it('uses ServiceAccount clients with --use-service-account-credentials', () => {
    const built = setup(
      ['--cluster-cidr=10.0.0.0/16', '--use-service-account-credentials'],
      ['instances', 'loadBalancer', 'routes'],
    );
    expect(built.names).toEqual(['cloud-node', 'cloud-node-lifecycle', 'service', 'route']);
    expect(built.clientNames).toEqual([
      'serviceAccount:node-controller',
      'serviceAccount:node-controller',
      'serviceAccount:service-controller',
      'serviceAccount:route-controller',
    ]);
  });

  it('warns for each controller the provider cannot serve, and makes no client for it', () => {
    const built = setup([], ['zones']);
    expect(built.names).toEqual([]);
    expect(built.clientNames).toEqual([]);
    expect(withoutDebug(built.records)).toEqual([
      expect.objectContaining({
        level: 'warn',
        msg: 'skipping cloud-node: the provider implements neither InstancesV2 nor Instances',
      }),
      expect.objectContaining({
        level: 'warn',
        msg: 'skipping cloud-node-lifecycle: the provider implements neither InstancesV2 nor Instances',
      }),
      expect.objectContaining({ level: 'warn', msg: 'skipping service: the provider does not support load balancers' }),
      expect.objectContaining({
        level: 'warn',
        msg: '--configure-cloud-routes is set, but the provider does not support routes; not configuring routes',
      }),
    ]);
  });

  it('says why routes are off with --configure-cloud-routes=false, and skips what --controllers disables', () => {
    const off = setup(['--configure-cloud-routes=false'], ['instancesV2', 'routes']);
    expect(off.names).toEqual(['cloud-node', 'cloud-node-lifecycle']);
    expect(off.records.filter((r) => r.msg.includes('routes'))).toEqual([
      expect.objectContaining({
        level: 'info',
        msg: 'will not configure cloud provider routes: --configure-cloud-routes is false',
      }),
    ]);
    const some = setup(['--controllers=*,-cloud-node-lifecycle,-route'], ['instancesV2', 'loadBalancer', 'routes']);
    expect(some.names).toEqual(['cloud-node', 'service']);
    expect(withoutDebug(some.records)).toEqual([]);
  });

  it('serves Services through the class balancer even when the provider has no load balancer', () => {
    const balancer = new FakeProvider({ capabilities: ['loadBalancer'] }).loadBalancer() as LoadBalancer;
    const built = setup(['--controllers=service'], ['instancesV2'], {
      loadBalancing: { balancer, classes: new Set(['example.com/lb']), classless: false },
    });
    expect(built.names).toEqual(['service']);
    expect(built.components).toEqual(['service-controller']);
  });

  it('refuses to build the route controller without --cluster-cidr', () => {
    expect(() => setup([], ['instancesV2', 'routes'])).toThrow(/--cluster-cidr: required by the route controller/);
  });
});
