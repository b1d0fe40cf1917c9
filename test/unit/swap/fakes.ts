// Fake providers, sources and loaders for the swap logic: each provider answers with its own label so a test can
// tell which plugin served a call, and any call can be held open to play the part of a call in flight.
import { createHash } from 'node:crypto';
import type { Provider, InstanceMetadata, Node, Service } from '../../../host/src/cloudprovider/index.ts';
import type { Capability } from '../../../host/src/abi/index.ts';
import type { CandidateLoader, LoadedCandidate } from '../../../host/src/plugin/swap/candidate.ts';
import type { RevisionSource, RevisionListener, SourceRevision } from '../../../host/src/plugin/swap/source.ts';
import type { ProviderConfig } from '../../../host/src/plugin/config/types.ts';
import { scriptedCapability } from '../../support/scripted-capability.ts';

export interface FakeProvider {
  provider: Provider;
  label: string;
  served: string[];
  closed: boolean;
  /** While set, every call waits for it. */
  gate: Promise<void> | undefined;
  close(): Promise<void>;
}

export function fakeProvider(
  label: string,
  options: { name?: string; capabilities?: Capability[]; metadata?: (node: Node) => InstanceMetadata } = {},
): FakeProvider {
  const caps = new Set(options.capabilities ?? ['instancesV2', 'loadBalancer']);
  const fake: FakeProvider = {
    label,
    served: [],
    closed: false,
    gate: undefined,
    provider: undefined as unknown as Provider,
    async close() {
      fake.closed = true;
    },
  };
  const serve = async <T>(what: string, value: () => T): Promise<T> => {
    if (fake.closed) throw new Error(`${label} is closed`);
    await fake.gate;
    fake.served.push(what);
    return value();
  };
  const metadata =
    options.metadata ??
    ((node: Node): InstanceMetadata => ({
      providerID: `fake://${node.name}`,
      instanceType: label,
      nodeAddresses: [],
      zone: '',
      region: '',
      additionalLabels: {},
    }));
  fake.provider = {
    providerName: () => options.name ?? 'fake',
    hasClusterID: () => true,
    instancesV2: () =>
      caps.has('instancesV2')
        ? scriptedCapability('instancesV2', {
            instanceExists: (node) => serve(`exists ${node.name}`, () => true),
            instanceShutdown: (node) => serve(`shutdown ${node.name}`, () => false),
            instanceMetadata: (node) => serve(`metadata ${node.name}`, () => metadata(node)),
          })
        : undefined,
    instances: () => undefined,
    loadBalancer: () =>
      caps.has('loadBalancer')
        ? scriptedCapability('loadBalancer', {
            getLoadBalancer: (_c, svc) =>
              serve(`get ${svc.name}`, () => ({
                exists: true,
                status: { ingress: [{ ip: label, hostname: '', ipMode: '', ports: [] }] },
              })),
            getLoadBalancerName: (_c, svc) => serve(`name ${svc.name}`, () => `${label}-${svc.name}`),
            ensureLoadBalancer: (_c, svc) =>
              serve(`ensure ${svc.name}`, () => ({ ingress: [{ ip: label, hostname: '', ipMode: '', ports: [] }] })),
            updateLoadBalancer: (_c, svc) => serve(`update ${svc.name}`, () => undefined),
            ensureLoadBalancerDeleted: (_c, svc) => serve(`delete ${svc.name}`, () => undefined),
          })
        : undefined,
    routes: () => undefined,
    zones: () => undefined,
    clusters: () => undefined,
  };
  return fake;
}

export function node(name: string): Node {
  return { name, uid: `uid-${name}`, providerID: '', labels: {}, annotations: {}, addresses: [] };
}

export function service(name: string, loadBalancerClass = ''): Service {
  return {
    name,
    namespace: 'default',
    uid: `uid-${name}`,
    labels: {},
    annotations: {},
    ports: [],
    loadBalancerIP: '',
    loadBalancerSourceRanges: [],
    externalTrafficPolicy: 'Cluster',
    healthCheckNodePort: 0,
    ipFamilies: [],
    ipFamilyPolicy: '',
    loadBalancerClass,
    sessionAffinity: 'None',
    externalIPs: [],
  };
}

/** A "module": its bytes are just the text `<name>@<version>`, which the fake loader understands. */
export function moduleOf(version: string, name = 'fake'): Uint8Array {
  return new TextEncoder().encode(`${name}@${version}`);
}

export function sha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** Loads fake modules; `fail` makes a version refuse to load (as a trapping ccm_initialize would). */
export function fakeLoader(
  options: {
    capabilities?: Capability[];
    fail?: Record<string, string>;
    delayMs?: number;
    providers?: Map<string, FakeProvider>;
  } = {},
): CandidateLoader & { loaded: string[] } {
  const loaded: string[] = [];
  const load = async (bytes: Uint8Array): Promise<LoadedCandidate> => {
    const [name = '', version = ''] = new TextDecoder().decode(bytes).split('@');
    loaded.push(version);
    if (options.delayMs) await new Promise((r) => setTimeout(r, options.delayMs));
    const failure = options.fail?.[version];
    if (failure !== undefined) throw new Error(`cannot load plugin: ${failure}`);
    const caps = options.capabilities ?? ['instancesV2', 'loadBalancer'];
    const fake = fakeProvider(version, { name, capabilities: caps });
    options.providers?.set(version, fake);
    return {
      info: { providerName: name, version, abi: '1.0', capabilities: new Set(caps), sha256: sha256(bytes) },
      provider: fake.provider,
      stats: () => ({ idle: 1, busy: 0, starting: 0, waiting: 0 }),
      close: () => fake.close(),
    };
  };
  return Object.assign(load, { loaded });
}

/** A source the test drives by hand. */
export class ManualSource implements RevisionSource {
  readonly description = 'manual';
  #listener: RevisionListener | undefined;
  stopped = false;
  readonly #first: SourceRevision;

  constructor(first: Uint8Array, signature?: string) {
    this.#first = revision(first, signature);
  }

  async start(listener: RevisionListener): Promise<SourceRevision> {
    this.#listener = listener;
    return this.#first;
  }

  async stop(): Promise<void> {
    this.stopped = true;
  }

  push(bytes: Uint8Array, signature?: string): void {
    this.#listener?.(revision(bytes, signature));
  }
}

export function revision(bytes: Uint8Array, signature?: string): SourceRevision {
  return {
    bytes,
    signature,
    origin: 'manual',
    object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'plugin', namespace: 'kube-system', uid: 'u1' } },
    noticedAt: Date.now(),
  };
}

export function providerConfig(overrides: Partial<ProviderConfig> = {}): ProviderConfig {
  return {
    name: 'fake',
    source: { kind: 'configMap', namespace: 'kube-system', name: 'plugin', key: 'fake.wasm' },
    sha256: undefined,
    signature: undefined,
    allowedHosts: [],
    credentialsFile: undefined,
    limits: { callTimeoutMs: 1_000, memoryLimitMB: 64, poolSize: 1 },
    cloudConfig: '',
    capabilities: undefined,
    shadow: undefined,
    ...overrides,
  };
}

export interface RecordedEvent {
  type: string;
  reason: string;
  message: string;
  object: string | undefined;
}

export function eventLog(): {
  events: RecordedEvent[];
  recordEvent: (o: { metadata?: { name?: string } }, type: string, reason: string, message: string) => void;
} {
  const events: RecordedEvent[] = [];
  return {
    events,
    recordEvent: (object, type, reason, message) =>
      events.push({ type, reason, message, object: object.metadata?.name }),
  };
}

/** A promise with its resolve function outside. */
export function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve: () => void = () => {};
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}
