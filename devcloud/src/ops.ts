// Every cloud API operation has a name. Knobs target operations by name or by kind ("read" = GET,
// "write" = everything else, "*" = all), and the request counters are keyed by it.

export const CLOUD_OPS = {
  listRegions: 'read',
  listZones: 'read',
  listInstances: 'read',
  getInstance: 'read',
  getInstanceByName: 'read',
  getInstancesByIds: 'read',
  getInstancesByNames: 'read',
  listLoadBalancers: 'read',
  getLoadBalancer: 'read',
  createLoadBalancer: 'write',
  updateLoadBalancer: 'write',
  deleteLoadBalancer: 'write',
  listRoutes: 'read',
  getRoute: 'read',
  createRoute: 'write',
  deleteRoute: 'write',
} as const satisfies Record<string, 'read' | 'write'>;

export type CloudOp = keyof typeof CLOUD_OPS;

export const isCloudOp = (s: string): s is CloudOp => Object.hasOwn(CLOUD_OPS, s);

/** A knob target: an operation name, "read", "write" or "*". */
export const isOpKind = (s: string): boolean => s === '*' || s === 'read' || s === 'write' || isCloudOp(s);

export function kindMatches(kind: string, op: CloudOp): boolean {
  return kind === '*' || kind === op || kind === CLOUD_OPS[op];
}
