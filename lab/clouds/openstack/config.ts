// The lab OpenStack's configuration files, written anew for every run: each run serves its APIs, MariaDB and
// RabbitMQ on ports of its own, so nothing that names a port is kept in the cached state.
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  COMPUTE_HOST,
  DB_PASSWORD,
  DB_USER,
  DOMAIN,
  EXTERNAL_PHYSNET,
  type Layout,
  OCTAVIA_CA_PASSPHRASE,
  REGION,
  SERVICE_PASSWORD,
  SERVICE_PROJECT,
  TENANT_PHYSNET,
} from './layout.ts';
import { PHYSNET_BRIDGES } from './infra.ts';
import type { ServiceUser } from './resources.ts';

export interface Ports {
  mariadb: number;
  amqp: number;
  rabbitDist: number;
  epmd: number;
  keystone: number;
  placement: number;
  glance: number;
  nova: number;
  neutron: number;
  octavia: number;
  /** The neutron agent's OpenFlow controller. */
  openflow: number;
}

type Section = Record<string, string | number | boolean>;
type Ini = Record<string, Section>;

function render(ini: Ini): string {
  return Object.entries(ini)
    .map(([section, options]) =>
      [`[${section}]`, ...Object.entries(options).map(([key, value]) => `${key} = ${String(value)}`)].join('\n'),
    )
    .join('\n\n')
    .concat('\n');
}

/** The paths of the files each service reads. */
export interface ConfigFiles {
  keystone: string;
  placementDir: string;
  glanceDir: string;
  novaDir: string;
  nova: string;
  neutronDir: string;
  neutron: string;
  octavia: string;
}

export interface ConfigInput {
  layout: Layout;
  venv: string;
  ports: Ports;
  /** `unix:<path>` of this run's ovsdb-server. */
  ovsdb: string;
}

const url = (port: number): string => `http://127.0.0.1:${port}`;

export function databaseUrl(ports: Ports, database: string): string {
  return `mysql+pymysql://${DB_USER}:${DB_PASSWORD}@127.0.0.1:${ports.mariadb}/${database}?charset=utf8mb4`;
}

export function transportUrl(ports: Ports): string {
  return `rabbit://guest:guest@127.0.0.1:${ports.amqp}/`;
}

/** The options of a keystoneauth password plugin for the service user `user` (a section of its own). */
function serviceAuth(ports: Ports, user: ServiceUser): Section {
  return {
    auth_type: 'password',
    auth_url: `${url(ports.keystone)}/v3`,
    project_domain_name: DOMAIN,
    user_domain_name: DOMAIN,
    project_name: SERVICE_PROJECT,
    username: user,
    password: SERVICE_PASSWORD,
    region_name: REGION,
  };
}

function authtoken(ports: Ports, user: ServiceUser): Section {
  return {
    ...serviceAuth(ports, user),
    www_authenticate_uri: `${url(ports.keystone)}/v3`,
    service_token_roles_required: true,
  };
}

function common(input: ConfigInput): Ini {
  return {
    oslo_concurrency: { lock_path: input.layout.locks },
    oslo_messaging_notifications: { driver: 'noop' },
    oslo_messaging_rabbit: { heartbeat_timeout_threshold: 0 },
  };
}

function keystone({ layout, ports }: ConfigInput): Ini {
  return {
    DEFAULT: { debug: false },
    database: { connection: databaseUrl(ports, 'keystone') },
    token: { provider: 'fernet' },
    fernet_tokens: { key_repository: layout.fernetKeys },
    fernet_receipts: { key_repository: layout.fernetKeys },
    credential: { key_repository: layout.credentialKeys },
    // Every request validates a token: without a cache that is a dozen queries each time.
    cache: { enabled: true, backend: 'dogpile.cache.memory' },
    // bcrypt's lowest cost: the lab's passwords guard nothing, and every token issued hashes one.
    identity: { password_hash_algorithm: 'bcrypt', password_hash_rounds: 4 },
  };
}

function placement(input: ConfigInput): Ini {
  const { ports } = input;
  return {
    ...common(input),
    placement_database: { connection: databaseUrl(ports, 'placement') },
    api: { auth_strategy: 'keystone' },
    keystone_authtoken: authtoken(ports, 'placement'),
  };
}

function glance(input: ConfigInput): Ini {
  const { layout, ports, venv } = input;
  return {
    ...common(input),
    DEFAULT: { enabled_backends: 'fs:file' },
    glance_store: { default_backend: 'fs' },
    fs: { filesystem_store_datadir: layout.glanceImages },
    os_glance_staging_store: { filesystem_store_datadir: join(layout.run, 'glance-staging') },
    os_glance_tasks_store: { filesystem_store_datadir: join(layout.run, 'glance-tasks') },
    database: { connection: databaseUrl(ports, 'glance') },
    keystone_authtoken: authtoken(ports, 'glance'),
    paste_deploy: { flavor: 'keystone', config_file: join(venv, 'etc', 'glance', 'glance-api-paste.ini') },
  };
}

function nova(input: ConfigInput): Ini {
  const { layout, ports } = input;
  return {
    ...common(input),
    DEFAULT: {
      transport_url: transportUrl(ports),
      // The fake driver that keeps its compute node's id across restarts (nova-compute refuses to start on a
      // host whose node it cannot match).
      compute_driver: 'fake.FakeDriverWithoutFakeNodes',
      host: COMPUTE_HOST,
      my_ip: '127.0.0.1',
      state_path: layout.novaState,
      instances_path: join(layout.novaState, 'instances'),
    },
    api: { auth_strategy: 'keystone' },
    wsgi: { api_paste_config: 'api-paste.ini' },
    api_database: { connection: databaseUrl(ports, 'nova_api') },
    database: { connection: databaseUrl(ports, 'nova') },
    keystone_authtoken: authtoken(ports, 'nova'),
    service_user: { send_service_user_token: true, ...serviceAuth(ports, 'nova') },
    placement: serviceAuth(ports, 'nova'),
    neutron: { ...serviceAuth(ports, 'nova'), default_floating_pool: 'public' },
    conductor: { workers: 1 },
    scheduler: { workers: 1, discover_hosts_in_cells_interval: -1 },
    vnc: { enabled: false },
  };
}

function neutron(input: ConfigInput): Ini {
  const { ports, venv, ovsdb } = input;
  const mappings = Object.entries(PHYSNET_BRIDGES).map(([physnet, bridge]) => `${physnet}:${bridge}`);
  return {
    ...common(input),
    DEFAULT: {
      core_plugin: 'ml2',
      service_plugins: 'router',
      transport_url: transportUrl(ports),
      host: COMPUTE_HOST,
      auth_strategy: 'keystone',
      allow_overlapping_ips: true,
      api_paste_config: join(venv, 'etc', 'neutron', 'api-paste.ini'),
      // The fake virt driver plugs nothing: there is no port event nova would wait for.
      notify_nova_on_port_status_changes: false,
      notify_nova_on_port_data_changes: false,
      rpc_workers: 1,
      rpc_state_report_workers: 1,
      api_workers: 1,
    },
    database: { connection: databaseUrl(ports, 'neutron') },
    keystone_authtoken: authtoken(ports, 'neutron'),
    ml2: {
      type_drivers: 'flat,vlan',
      tenant_network_types: 'vlan',
      mechanism_drivers: 'openvswitch',
      extension_drivers: 'port_security',
    },
    ml2_type_flat: { flat_networks: EXTERNAL_PHYSNET },
    ml2_type_vlan: { network_vlan_ranges: `${TENANT_PHYSNET}:100:199` },
    // The agent runs as root already: `env` stands where sudo would (an empty helper means sudo to privsep).
    agent: { root_helper: 'env', report_interval: 10, tunnel_types: '' },
    securitygroup: { firewall_driver: 'noop' },
    ovs: {
      bridge_mappings: mappings.join(','),
      datapath_type: 'netdev',
      ovsdb_connection: ovsdb,
      of_listen_address: '127.0.0.1',
      of_listen_port: ports.openflow,
    },
  };
}

function octavia(input: ConfigInput): Ini {
  const { layout, ports } = input;
  const ca = (file: string): string => join(layout.octaviaCa, file);
  return {
    ...common(input),
    DEFAULT: { transport_url: transportUrl(ports), host: 'lab-octavia' },
    api_settings: {
      auth_strategy: 'keystone',
      enabled_provider_drivers: 'amphora:The lab amphora driver (noop drivers)',
      default_provider_driver: 'amphora',
    },
    database: { connection: databaseUrl(ports, 'octavia') },
    keystone_authtoken: authtoken(ports, 'octavia'),
    service_auth: serviceAuth(ports, 'octavia'),
    controller_worker: {
      amphora_driver: 'amphora_noop_driver',
      compute_driver: 'compute_noop_driver',
      network_driver: 'network_noop_driver',
      volume_driver: 'volume_noop_driver',
      image_driver: 'image_noop_driver',
      loadbalancer_topology: 'SINGLE',
      client_ca: ca('ca.pem'),
    },
    certificates: {
      cert_manager: 'noop_cert_manager',
      cert_generator: 'local_cert_generator',
      ca_certificate: ca('ca.pem'),
      ca_private_key: ca('ca.key'),
      ca_private_key_passphrase: OCTAVIA_CA_PASSPHRASE,
      server_certs_key_passphrase: 'lab-octavia-server-certs-key-32c',
    },
    haproxy_amphora: { client_cert: ca('client.pem'), server_ca: ca('ca.pem') },
    health_manager: { heartbeat_key: 'lab-heartbeat-key' },
    task_flow: { jobboard_enabled: false },
  };
}

/** Writes every service's configuration into the run's etc directory. */
export function writeConfigs(input: ConfigInput): ConfigFiles {
  const { layout, venv } = input;
  const dir = (name: string): string => {
    const path = join(layout.etc, name);
    mkdirSync(path, { recursive: true });
    return path;
  };
  const write = (path: string, ini: Ini): string => {
    writeFileSync(path, render(ini));
    return path;
  };
  const dirs = [
    layout.locks,
    layout.novaState,
    layout.glanceImages,
    join(layout.run, 'glance-staging'),
    join(layout.run, 'glance-tasks'),
  ];
  for (const path of dirs) {
    mkdirSync(path, { recursive: true });
  }
  const novaDir = dir('nova');
  copyFileSync(join(venv, 'etc', 'nova', 'api-paste.ini'), join(novaDir, 'api-paste.ini'));
  const placementDir = dir('placement');
  const glanceDir = dir('glance');
  const neutronDir = dir('neutron');
  write(join(placementDir, 'placement.conf'), placement(input));
  write(join(glanceDir, 'glance-api.conf'), glance(input));
  return {
    keystone: write(join(dir('keystone'), 'keystone.conf'), keystone(input)),
    placementDir,
    glanceDir,
    novaDir,
    nova: write(join(novaDir, 'nova.conf'), nova(input)),
    neutronDir,
    neutron: write(join(neutronDir, 'neutron.conf'), neutron(input)),
    octavia: write(join(dir('octavia'), 'octavia.conf'), octavia(input)),
  };
}
