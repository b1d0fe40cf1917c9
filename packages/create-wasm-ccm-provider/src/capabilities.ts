// The capabilities the template writes a provider for, each method with the SDK's request and response classes and
// the template module that implements it (template/assembly/<module>.ts, one function per method with the method's
// name and (api or config, req, out) parameters). test/unit/create/template.test.ts keeps this equal to the ABI.

export interface TemplateMethod {
  name: string;
  request: string;
  response: string;
  /** What the module function takes first: the API client, or the parsed cloud config. */
  uses: 'api' | 'config';
}

export interface TemplateCapability {
  module: string;
  methods: readonly TemplateMethod[];
}

const m = (name: string, request: string, response: string, uses: 'api' | 'config' = 'api'): TemplateMethod => ({
  name,
  request,
  response,
  uses,
});

export const TEMPLATE_CAPABILITIES: Readonly<Record<string, TemplateCapability>> = {
  instancesV2: {
    module: 'instances',
    methods: [
      m('instanceExists', 'InstanceExistsRequest', 'InstanceExistsResponse'),
      m('instanceShutdown', 'InstanceShutdownRequest', 'InstanceShutdownResponse'),
      m('instanceMetadata', 'InstanceMetadataRequest', 'InstanceMetadata'),
    ],
  },
  loadBalancer: {
    module: 'loadbalancer',
    methods: [
      m('getLoadBalancer', 'GetLoadBalancerRequest', 'GetLoadBalancerResponse'),
      m('getLoadBalancerName', 'GetLoadBalancerNameRequest', 'GetLoadBalancerNameResponse'),
      m('ensureLoadBalancer', 'EnsureLoadBalancerRequest', 'EnsureLoadBalancerResponse'),
      m('updateLoadBalancer', 'UpdateLoadBalancerRequest', 'UpdateLoadBalancerResponse'),
      m('ensureLoadBalancerDeleted', 'EnsureLoadBalancerDeletedRequest', 'EnsureLoadBalancerDeletedResponse'),
    ],
  },
  routes: {
    module: 'routes',
    methods: [
      m('listRoutes', 'ListRoutesRequest', 'ListRoutesResponse'),
      m('createRoute', 'CreateRouteRequest', 'CreateRouteResponse'),
      m('deleteRoute', 'DeleteRouteRequest', 'DeleteRouteResponse'),
    ],
  },
  zones: {
    module: 'zones',
    methods: [
      m('getZone', 'GetZoneRequest', 'Zone', 'config'),
      m('getZoneByProviderID', 'GetZoneByProviderIDRequest', 'Zone'),
      m('getZoneByNodeName', 'GetZoneByNodeNameRequest', 'Zone'),
    ],
  },
};

/** Capabilities of the ABI the template does not write, and why. */
export const NOT_TEMPLATED: Readonly<Record<string, string>> = {
  instances: 'the legacy Instances interface; upstream controllers use instancesV2 when a provider has it',
  clusters: 'upstream controllers never call Clusters; declare it only if you need it',
};

export const DEFAULT_CAPABILITIES: readonly string[] = ['instancesV2', 'loadBalancer', 'routes', 'zones'];

export class CapabilityError extends Error {
  override name = 'CapabilityError';
  readonly code = 'UNSUPPORTED_CAPABILITY';
}

/** The capabilities asked for, in the ABI's order; refuses unknown names and names the template does not write. */
export function parseCapabilities(list: string): string[] {
  const asked = list
    .split(',')
    .map((c) => c.trim())
    .filter((c) => c !== '');
  if (asked.length === 0) throw new CapabilityError('--capabilities: name at least one capability');
  for (const name of asked) {
    if (name in NOT_TEMPLATED) {
      throw new CapabilityError(`--capabilities: the template does not write ${name} (${NOT_TEMPLATED[name]})`);
    }
    if (!(name in TEMPLATE_CAPABILITIES)) {
      const known = Object.keys(TEMPLATE_CAPABILITIES).join(', ');
      throw new CapabilityError(`--capabilities: unknown capability "${name}" (the template writes ${known})`);
    }
  }
  return Object.keys(TEMPLATE_CAPABILITIES).filter((c) => asked.includes(c));
}
