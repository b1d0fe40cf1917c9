// What the lab OpenStack holds once initialized, created through its APIs as an operator would: the service users
// and the catalog, a flavor, an image, an external network and a shared tenant network routed to it. Also the
// catalog's per-run update: every start serves the APIs on new ports.
import type { OpenStackClient, ServiceType } from './api.ts';
import { EXTERNAL_PHYSNET, REGION, SERVICE_PASSWORD, SERVICE_PROJECT, TENANT_PHYSNET } from './layout.ts';

/** The keystone user of each service; each has the admin and service roles in the service project. */
export const SERVICE_USERS = ['nova', 'neutron', 'placement', 'glance', 'octavia'] as const;
export type ServiceUser = (typeof SERVICE_USERS)[number];

/** The catalog's services: their type, name, and the path under the API's root their endpoints name. */
export const CATALOG: ReadonlyArray<{ type: ServiceType; name: string; path: string }> = [
  { type: 'identity', name: 'keystone', path: '/v3' },
  { type: 'compute', name: 'nova', path: '/v2.1' },
  { type: 'placement', name: 'placement', path: '' },
  { type: 'image', name: 'glance', path: '' },
  { type: 'network', name: 'neutron', path: '' },
  { type: 'load-balancer', name: 'octavia', path: '' },
];
const INTERFACES = ['public', 'internal', 'admin'] as const;

/** The ids of what initialization created, kept in the state directory beside the data. */
export interface LabResources {
  flavor: { id: string; name: string };
  image: { id: string; name: string };
  /** The external network (router gateways, floating IPs): flat, on the `public` physical network. */
  external: { networkId: string; subnetId: string; cidr: string };
  /** A VLAN network every project may boot on, routed to the external network. */
  shared: { networkId: string; subnetId: string; cidr: string; routerId: string };
}

interface Named {
  id: string;
  name: string;
}

async function ensureRole(admin: OpenStackClient, name: string): Promise<string> {
  const { roles } = await admin.get<{ roles: Named[] }>('identity', `/roles?name=${name}`);
  if (roles[0]) return roles[0].id;
  return (await admin.post<{ role: Named }>('identity', '/roles', { role: { name } })).role.id;
}

async function createServiceUsers(admin: OpenStackClient): Promise<void> {
  const { project } = await admin.post<{ project: Named }>('identity', '/projects', {
    project: { name: SERVICE_PROJECT, domain_id: 'default', description: 'The lab services' },
  });
  // nova and the other services send an X-Service-Token: the services checking it want the service role.
  const roles = [await ensureRole(admin, 'admin'), await ensureRole(admin, 'service')];
  for (const name of SERVICE_USERS) {
    const { user } = await admin.post<{ user: Named }>('identity', '/users', {
      user: { name, password: SERVICE_PASSWORD, domain_id: 'default', default_project_id: project.id },
    });
    for (const role of roles) {
      await admin.request('identity', 'PUT', `/projects/${project.id}/users/${user.id}/roles/${role}`);
    }
  }
}

/** The root URL of each API, by service type: what the catalog's endpoints are made from. */
export type ApiRoots = Record<ServiceType, string>;

interface Endpoint {
  id: string;
  service_id: string;
  interface: string;
  url: string;
}

/** Creates the catalog's services and endpoints (the identity service exists: keystone-manage bootstrap made it). */
async function createCatalog(admin: OpenStackClient, roots: ApiRoots): Promise<void> {
  const { services } = await admin.get<{ services: Array<Named & { type: string }> }>('identity', '/services');
  for (const entry of CATALOG) {
    if (services.some((s) => s.type === entry.type)) continue;
    const { service } = await admin.post<{ service: Named }>('identity', '/services', {
      service: { type: entry.type, name: entry.name },
    });
    for (const iface of INTERFACES) {
      await admin.post('identity', '/endpoints', {
        endpoint: { service_id: service.id, interface: iface, region_id: REGION, url: roots[entry.type] + entry.path },
      });
    }
  }
}

/** Points every endpoint of the catalog at this run's ports. */
export async function updateCatalog(admin: OpenStackClient, roots: ApiRoots): Promise<void> {
  const { services } = await admin.get<{ services: Array<Named & { type: string }> }>('identity', '/services');
  const { endpoints } = await admin.get<{ endpoints: Endpoint[] }>('identity', '/endpoints');
  for (const entry of CATALOG) {
    const service = services.find((s) => s.type === entry.type);
    if (service === undefined) throw new Error(`the lab's catalog has no ${entry.type} service`);
    const url = roots[entry.type] + entry.path;
    for (const endpoint of endpoints.filter((e) => e.service_id === service.id && e.url !== url)) {
      await admin.request('identity', 'PATCH', `/endpoints/${endpoint.id}`, { body: { endpoint: { url } } });
    }
  }
}

async function uploadImage(admin: OpenStackClient): Promise<LabResources['image']> {
  const name = 'lab-image';
  const image = await admin.post<Named>('image', '/v2/images', {
    name,
    disk_format: 'raw',
    container_format: 'bare',
    visibility: 'public',
  });
  // The fake virt driver never reads the image: a few bytes stand for a disk.
  await admin.request('image', 'PUT', `/v2/images/${image.id}/file`, {
    body: new TextEncoder().encode('lab image: the fake virt driver boots nothing\n'),
    headers: { 'content-type': 'application/octet-stream' },
  });
  return { id: image.id, name };
}

async function createNetworks(admin: OpenStackClient): Promise<Pick<LabResources, 'external' | 'shared'>> {
  const external = await admin.post<{ network: Named }>('network', '/v2.0/networks', {
    network: {
      name: 'public',
      'router:external': true,
      'provider:network_type': 'flat',
      'provider:physical_network': EXTERNAL_PHYSNET,
    },
  });
  const externalCidr = '172.24.4.0/24';
  const externalSubnet = await admin.post<{ subnet: Named }>('network', '/v2.0/subnets', {
    subnet: { name: 'public-subnet', network_id: external.network.id, ip_version: 4, cidr: externalCidr },
  });
  const shared = await admin.post<{ network: Named }>('network', '/v2.0/networks', {
    network: {
      name: 'lab-net',
      shared: true,
      'provider:network_type': 'vlan',
      'provider:physical_network': TENANT_PHYSNET,
    },
  });
  const sharedCidr = '10.0.0.0/24';
  const sharedSubnet = await admin.post<{ subnet: Named }>('network', '/v2.0/subnets', {
    subnet: { name: 'lab-subnet', network_id: shared.network.id, ip_version: 4, cidr: sharedCidr },
  });
  const router = await admin.post<{ router: Named }>('network', '/v2.0/routers', {
    router: { name: 'lab-router', external_gateway_info: { network_id: external.network.id } },
  });
  await admin.put('network', `/v2.0/routers/${router.router.id}/add_router_interface`, {
    subnet_id: sharedSubnet.subnet.id,
  });
  return {
    external: { networkId: external.network.id, subnetId: externalSubnet.subnet.id, cidr: externalCidr },
    shared: {
      networkId: shared.network.id,
      subnetId: sharedSubnet.subnet.id,
      cidr: sharedCidr,
      routerId: router.router.id,
    },
  };
}

export async function createIdentity(admin: OpenStackClient, roots: ApiRoots): Promise<void> {
  await createServiceUsers(admin);
  await createCatalog(admin, roots);
}

export async function createResources(admin: OpenStackClient): Promise<LabResources> {
  const { flavor } = await admin.post<{ flavor: Named }>('compute', '/flavors', {
    flavor: { name: 'm1.small', vcpus: 1, ram: 2048, disk: 20 },
  });
  const image = await uploadImage(admin);
  const networks = await createNetworks(admin);
  return { flavor: { id: flavor.id, name: flavor.name }, image, ...networks };
}
