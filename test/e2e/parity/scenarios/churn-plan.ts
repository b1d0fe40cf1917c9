// The `churn` scenario's edits, drawn from a seeded PRNG so both CCMs get the same sequence, and the state each
// edit leads to (what the cloud's load balancers must show once both CCMs have handled it). Pure: no cluster here.
//
// One step is one Node edit or a few Service edits on distinct Services, never both: a Service ensured while a node
// sync runs may or may not be given the new node set before the sync reaches it (either CCM records the set it gave
// and skips the Service then), so mixing them would make the UpdatedLoadBalancer counts depend on timing.
import { mulberry32 } from '../../../../devcloud/src/index.ts';

export interface ChurnSize {
  seed: number;
  nodes: number;
  services: number;
  steps: number;
  /** Service edits in a Service step, each on another Service. */
  serviceEditsPerStep: number;
  /** Service edits go to the first this many Services (so one Service's edits build on each other: away and back,
   * deleted and re-created); the others take only the node syncs. */
  editedServices: number;
}

export const CHURN_SIZE: ChurnSize = {
  seed: 0x34c0ffee,
  nodes: 200,
  services: 100,
  steps: 30,
  serviceEditsPerStep: 5,
  editedServices: 25,
};

export type ServiceType = 'LoadBalancer' | 'ClusterIP';

export interface ChurnNode {
  excluded: boolean;
  ready: boolean;
}

export interface ChurnService {
  /** null: deleted. */
  type: ServiceType | null;
  port: number;
  /** The devcloud description annotation; undefined: not set. */
  description?: string;
}

export interface ChurnState {
  nodes: ReadonlyMap<string, ChurnNode>;
  services: ReadonlyMap<string, ChurnService>;
}

export type NodeEditKind = 'exclude' | 'include' | 'notReady' | 'ready' | 'add' | 'delete';
export type ServiceEditKind = 'port' | 'describe' | 'toClusterIP' | 'toLoadBalancer' | 'delete' | 'create';

export type ChurnEdit =
  | { on: 'node'; kind: NodeEditKind; node: string }
  | { on: 'service'; kind: ServiceEditKind; service: string; port?: number; description?: string };

export interface ChurnStep {
  edits: readonly ChurnEdit[];
  /** Whether the set of nodes the load balancers take changed: every cached load balancer is then updated. */
  nodeSetChanged: boolean;
  /** The state once the step is handled. */
  after: ChurnState;
}

export const churnNodeName = (i: number): string => `churn-n-${String(i).padStart(3, '0')}`;
export const churnServiceName = (i: number): string => `churn-s-${String(i).padStart(2, '0')}`;

/** Service ports an edit picks from (the node port of a Service never changes: allocated ones would differ). */
const PORTS = [80, 443, 8080, 8443, 9090, 3000] as const;
/** Node steps keep at least this many nodes. */
const MIN_NODES = 100;

/** The state before the first edit: every node Ready and included, every Service a LoadBalancer on port 80. */
export function initialChurnState(size: ChurnSize): ChurnState {
  const nodes = new Map<string, ChurnNode>();
  for (let i = 0; i < size.nodes; i++) nodes.set(churnNodeName(i), { excluded: false, ready: true });
  const services = new Map<string, ChurnService>();
  for (let i = 0; i < size.services; i++) services.set(churnServiceName(i), { type: 'LoadBalancer', port: 80 });
  return { nodes, services };
}

/** The nodes the load balancers take, sorted (NotReady ones included: upstream's node set is stable). */
export function includedNodes(state: ChurnState): string[] {
  return [...state.nodes]
    .filter(([, n]) => !n.excluded)
    .map(([name]) => name)
    .sort();
}

export function planChurn(size: ChurnSize = CHURN_SIZE): ChurnStep[] {
  const random = mulberry32(size.seed);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)]!;
  let state = initialChurnState(size);
  let nextNode = size.nodes;
  const steps: ChurnStep[] = [];
  for (let i = 0; i < size.steps; i++) {
    const before = includedNodes(state).join(' ');
    let edits: ChurnEdit[];
    if (random() < 0.5) {
      const edit = nodeEdit(state, pick, () => churnNodeName(nextNode));
      if (edit.kind === 'add') nextNode++;
      edits = [edit];
    } else {
      edits = serviceEdits(state, pick, size, i + 1);
    }
    state = edits.reduce(applyEdit, state);
    steps.push({ edits, nodeSetChanged: includedNodes(state).join(' ') !== before, after: state });
  }
  return steps;
}

function nodeEdit(state: ChurnState, pick: <T>(l: readonly T[]) => T, newName: () => string): ChurnEdit {
  const nodes = [...state.nodes];
  const where = (test: (n: ChurnNode) => boolean): string[] => nodes.filter(([, n]) => test(n)).map(([name]) => name);
  const candidates: [NodeEditKind, string[]][] = [
    ['exclude', where((n) => !n.excluded)],
    ['include', where((n) => n.excluded)],
    ['notReady', where((n) => n.ready)],
    ['ready', where((n) => !n.ready)],
    ['add', [newName()]],
    ['delete', nodes.length > MIN_NODES ? where(() => true) : []],
  ];
  const [kind, names] = pick(candidates.filter(([, names]) => names.length > 0));
  return { on: 'node', kind, node: pick(names) };
}

function serviceEdits(state: ChurnState, pick: <T>(l: readonly T[]) => T, size: ChurnSize, step: number): ChurnEdit[] {
  const names = [...state.services.keys()].slice(0, size.editedServices);
  const chosen = new Set<string>();
  while (chosen.size < Math.min(size.serviceEditsPerStep, names.length)) chosen.add(pick(names));
  return [...chosen].map((service, n) => {
    const s = state.services.get(service)!;
    const kinds: ServiceEditKind[] =
      s.type === null
        ? ['create']
        : ['port', 'describe', s.type === 'LoadBalancer' ? 'toClusterIP' : 'toLoadBalancer', 'delete'];
    const kind = pick(kinds);
    if (kind === 'port') return { on: 'service', kind, service, port: pick(PORTS.filter((p) => p !== s.port)) };
    if (kind === 'describe') return { on: 'service', kind, service, description: `e${step}-${n}` };
    return { on: 'service', kind, service };
  });
}

/** The state after one edit (a new state; the one given is left as it is). */
export function applyEdit(state: ChurnState, edit: ChurnEdit): ChurnState {
  if (edit.on === 'node') {
    const nodes = new Map(state.nodes);
    const n = nodes.get(edit.node);
    if (edit.kind === 'add') nodes.set(edit.node, { excluded: false, ready: true });
    else if (edit.kind === 'delete') nodes.delete(edit.node);
    else if (n) nodes.set(edit.node, nodeAfter(n, edit.kind));
    return { nodes, services: state.services };
  }
  const services = new Map(state.services);
  const s = services.get(edit.service)!;
  services.set(edit.service, serviceAfter(s, edit));
  return { nodes: state.nodes, services };
}

function nodeAfter(n: ChurnNode, kind: NodeEditKind): ChurnNode {
  if (kind === 'exclude' || kind === 'include') return { ...n, excluded: kind === 'exclude' };
  return { ...n, ready: kind === 'ready' };
}

function serviceAfter(s: ChurnService, edit: Extract<ChurnEdit, { on: 'service' }>): ChurnService {
  switch (edit.kind) {
    case 'port':
      return { ...s, port: edit.port! };
    case 'describe':
      return { ...s, description: edit.description! };
    case 'toClusterIP':
      return { ...s, type: 'ClusterIP' };
    case 'toLoadBalancer':
      return { ...s, type: 'LoadBalancer' };
    case 'delete':
      return { type: null, port: s.port };
    case 'create':
      return { type: 'LoadBalancer', port: 80 };
  }
}
