// Watermarks: before a step's result is read (above all, before asserting that something did NOT happen), the
// harness makes each CCM handle a marker of its own and waits until the effect shows. Work queued before the
// marker is then done on both sides, however much slower one of them is; no fixed sleep.
// - service: a marker Service's description annotation changes; the service queue (one worker) has handled
//   everything queued before it once its cloud LB carries the new description and the Event of that ensure shows.
// - route: a stray route (to a node that does not exist) is seeded; a route reconcile that started after it has
//   finished its creations once the route is gone.
// - lifecycle: a NotReady marker Node's instance is stopped; a node-monitor pass after that has run once the Node
//   has the shutdown taint.
// - node: a new tainted marker Node (excluded from load balancers) is created; the cloud-node queue (one worker)
//   has handled every Node queued before it once it is initialized and its Synced event is written.
// - refresh: a marker Node's instance gets a new address three times, each once the one before shows. Passes of the
//   node-status refresh do not overlap, but one writes its Nodes in parallel: the pass that shows the second change
//   started after the first change (one pass may read that mid-way), and once the third shows, the pass after it
//   has started, so every write of the second pass, the marker's and the other Nodes', is done.
// Events are written asynchronously by both CCMs, in order: a watermark also waits for the marker's own event.
import type { Address } from '../../../../devcloud/src/index.ts';
import { eventually } from '../../../../lab/process/index.ts';
import { DESCRIPTION, EXCLUDE_LB, port, SHUTDOWN, UNINITIALIZED } from './objects.ts';
import { HARNESS_PREFIX } from './snapshot.ts';
import type { World } from './world.ts';

export type WatermarkKind = 'service' | 'route' | 'lifecycle' | 'node' | 'refresh';

const WAIT_MS = 45_000;
/** Both CCMs drop an object's Normal events past 25 (client-go's spam filter): each marker Service takes 5 marks of
 * 2 events each (EnsuringLoadBalancer, EnsuredLoadBalancer), then the next one is created. Every node-set change
 * adds an UpdatedLoadBalancer to every marker: the other 15 leave room for three per step (`churn` makes one). */
const MARKS_PER_SERVICE = 5;
/** Marker node ports are 32700 + the marker's number, up to the end of the default range. */
const MARKER_PORT_BASE = 32700;
const MARKERS = 32767 - MARKER_PORT_BASE + 1;
const markerService = (n: number): string => `${HARNESS_PREFIX}marker-${Math.floor(n / MARKS_PER_SERVICE)}`;
const ROUTE_TARGET = `${HARNESS_PREFIX}route-target`;
const REFRESH_NODE = `${HARNESS_PREFIX}refresh`;

export class Watermarks {
  #serviceMarks = 0;
  #routeMarks = 0;
  #lifecycleMarks = 0;
  #nodeMarks = 0;
  #refreshMarks = 0;

  private readonly world: World;
  /** How many lifecycle watermarks the group may take (each uses a marker Node seeded before the CCM starts). */
  private readonly lifecyclePool: number;

  constructor(world: World, lifecyclePool: number) {
    this.world = world;
    this.lifecyclePool = lifecyclePool;
  }

  /** Seeds the cloud and the cluster before the CCM starts. */
  async seed(): Promise<void> {
    this.world.cloud.addInstance({ id: `i-${ROUTE_TARGET}`, name: ROUTE_TARGET });
    this.world.cloud.addInstance({ id: `i-${REFRESH_NODE}`, name: REFRESH_NODE, addresses: refreshAddresses(0) });
    await this.world.createNode({
      name: REFRESH_NODE,
      ready: true,
      initializedAs: `i-${REFRESH_NODE}`,
      labels: { [EXCLUDE_LB]: 'true' },
      addresses: refreshAddresses(0),
    });
    for (let i = 0; i < this.lifecyclePool; i++) {
      const name = `${HARNESS_PREFIX}life-${i}`;
      this.world.cloud.addInstance({ id: `i-${name}`, name });
      await this.world.createNode({
        name,
        ready: false,
        initializedAs: `i-${name}`,
        labels: { [EXCLUDE_LB]: 'true' },
      });
    }
  }

  /** Creates the first marker Service once the CCM runs. */
  async start(): Promise<void> {
    await this.#createMarker(0);
  }

  /** A marker Service whose LB has no backends (no node carries its group), described `mark-<n>`. */
  async #createMarker(n: number): Promise<void> {
    const name = markerService(n);
    const marker = Math.floor(n / MARKS_PER_SERVICE);
    if (marker >= MARKERS) throw new Error(`service watermark ${n}: all ${MARKERS} marker node ports are taken`);
    await this.world.createService({
      name,
      group: `${HARNESS_PREFIX}none`,
      ports: [port('mark', 9, MARKER_PORT_BASE + marker)],
      annotations: { [DESCRIPTION]: `mark-${n}` },
    });
    await this.#waitMarked(name, n, 1);
  }

  async #waitMarked(name: string, n: number, ensured: number): Promise<void> {
    await eventually(`service watermark ${n}`, () => this.world.lb(name)?.description === `mark-${n}`, WAIT_MS, 100);
    await eventually(
      `service watermark ${n}: ${name} EnsuredLoadBalancer x${ensured}`,
      async () => (await this.world.eventCount('Service', name, 'EnsuredLoadBalancer')) >= ensured,
      WAIT_MS,
      100,
    );
  }

  async settle(kinds: readonly WatermarkKind[]): Promise<void> {
    for (const kind of kinds) {
      if (kind === 'service') await this.service();
      else if (kind === 'route') await this.route();
      else if (kind === 'lifecycle') await this.lifecycle();
      else if (kind === 'node') await this.node();
      else await this.refresh();
    }
  }

  async service(): Promise<void> {
    const n = ++this.#serviceMarks;
    if (n % MARKS_PER_SERVICE === 0) return this.#createMarker(n);
    const name = markerService(n);
    await this.world.patchService(name, { metadata: { annotations: { [DESCRIPTION]: `mark-${n}` } } });
    await this.#waitMarked(name, n, (n % MARKS_PER_SERVICE) + 1);
  }

  async node(): Promise<void> {
    const name = `${HARNESS_PREFIX}node-${++this.#nodeMarks}`;
    this.world.cloud.addInstance({ id: `i-${name}`, name });
    await this.world.createNode({ name, ready: true, labels: { [EXCLUDE_LB]: 'true' } });
    await eventually(
      `node watermark ${name}`,
      async () =>
        !((await this.world.node(name))?.spec?.taints ?? []).some((t) => t.key === UNINITIALIZED) &&
        (await this.world.eventCount('Node', name, 'Synced')) > 0,
      WAIT_MS,
      100,
    );
  }

  async refresh(): Promise<void> {
    for (let pass = 0; pass < 3; pass++) {
      const n = ++this.#refreshMarks;
      this.world.cloud.patchInstance(`i-${REFRESH_NODE}`, { addresses: refreshAddresses(n) });
      const want = refreshAddresses(n)[1]!.address;
      await eventually(
        `refresh watermark ${n}`,
        async () => ((await this.world.node(REFRESH_NODE))?.status?.addresses ?? []).some((a) => a.address === want),
        WAIT_MS,
        100,
      );
    }
  }

  async route(): Promise<void> {
    const n = ++this.#routeMarks;
    const name = `${HARNESS_PREFIX}mark-${n}`;
    this.world.cloud.addRoute({
      name,
      destinationCidr: `10.244.255.${n}/32`,
      targetInstanceId: `i-${ROUTE_TARGET}`,
      tags: { 'k8s-cluster': 'kubernetes', 'k8s-node': `${HARNESS_PREFIX}gone` },
    });
    await eventually(
      `route watermark ${name}`,
      () => !this.world.cloud.inventory().routes.some((r) => r.name === name),
      WAIT_MS,
      100,
    );
  }

  async lifecycle(): Promise<void> {
    const i = this.#lifecycleMarks++;
    if (i >= this.lifecyclePool)
      throw new Error(`lifecycle watermark ${i}: the group seeded only ${this.lifecyclePool}`);
    const name = `${HARNESS_PREFIX}life-${i}`;
    this.world.cloud.stopInstance(`i-${name}`);
    await eventually(
      `lifecycle watermark ${name}`,
      async () => ((await this.world.node(name))?.spec?.taints ?? []).some((t) => t.key === SHUTDOWN),
      WAIT_MS,
      100,
    );
  }
}

/** The refresh marker's addresses, the n-th time: an ExternalIP that changes each time. */
function refreshAddresses(n: number): Address[] {
  return [
    { type: 'InternalIP', address: '10.0.250.1' },
    { type: 'ExternalIP', address: `203.0.113.${100 + n}` },
    { type: 'Hostname', address: REFRESH_NODE },
  ];
}
