// Where the lab OpenStack's pieces live: the venv scripts/build-openstack.sh installs, the cached state directory
// initOpenStack() fills once, and the per-run directory a started stack works in. Also the fixed names and
// credentials every part agrees on.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const HERE = dirname(fileURLToPath(import.meta.url));

export const REGION = 'RegionOne';
export const DOMAIN = 'Default';
export const ADMIN = { username: 'admin', password: 'lab-admin-secret', project: 'admin' } as const;
/** Every service's keystone user (nova, neutron, ...) is in this project and has this password. */
export const SERVICE_PROJECT = 'service';
export const SERVICE_PASSWORD = 'lab-service-secret';
export const DB_USER = 'openstack';
export const DB_PASSWORD = 'lab-db-secret';
export const DATABASES = [
  'keystone',
  'placement',
  'glance',
  'nova_api',
  'nova',
  'nova_cell0',
  'neutron',
  'octavia',
] as const;
/** The one compute host: nova-compute and the neutron agent must name the same host for ports to bind. */
export const COMPUTE_HOST = 'lab-compute';
/** The physical network the tenant VLANs ride on, and the one the external (router gateway) network is on. */
export const TENANT_PHYSNET = 'physnet1';
export const EXTERNAL_PHYSNET = 'public';
export const OCTAVIA_CA_PASSPHRASE = 'lab-octavia-ca-passphrase';

/** The cache the build scripts fill: $WASM_CCM_CACHE, else $XDG_CACHE_HOME/wasm-ccm, else ~/.cache/wasm-ccm. */
export function cacheDir(): string {
  return process.env.WASM_CCM_CACHE ?? join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'wasm-ccm');
}

/** The venv of scripts/build-openstack.sh, resolved through its symlink; throws with the command that builds it. */
export function venvDir(): string {
  const link = join(cacheDir(), 'venv', 'openstack');
  if (!existsSync(join(link, '.complete'))) {
    throw new Error(
      `the OpenStack services are not installed: expected ${link}. Run 'bash scripts/build-openstack.sh'.`,
    );
  }
  return realpathSync(link);
}

/** A program of the venv (keystone-manage, nova-conductor, ...). */
export function venvBin(venv: string, program: string): string {
  return join(venv, 'bin', program);
}

// What a state directory holds depends on the installed services and on the code that initializes and configures
// them: a change to either means a new state directory, never a stale one.
const STATE_SOURCES = ['init.ts', 'config.ts', 'infra.ts', 'services.ts', 'resources.ts', 'wsgi_runner.py'];

export function stateKey(venv: string): string {
  const hash = createHash('sha256').update(basename(venv));
  for (const file of STATE_SOURCES) hash.update(`\0${file}\0`).update(readFileSync(join(HERE, file)));
  return hash.digest('hex').slice(0, 12);
}

export function stateDir(venv: string): string {
  return join(cacheDir(), 'state', `openstack-${stateKey(venv)}`);
}

/**
 * The directories of a stack: its data (the cached state itself while initializing, a copy of it in a run) and
 * what only one run needs (configuration, logs, sockets, the broker's and the switch's databases).
 */
export interface Layout {
  data: string;
  mysqlData: string;
  fernetKeys: string;
  credentialKeys: string;
  octaviaCa: string;
  glanceImages: string;
  novaState: string;
  runRoot: string;
  etc: string;
  log: string;
  run: string;
  ovs: string;
  rabbit: string;
  locks: string;
}

export function layoutOf(data: string, runRoot: string): Layout {
  return {
    data,
    mysqlData: join(data, 'mysql'),
    fernetKeys: join(data, 'keystone', 'fernet-keys'),
    credentialKeys: join(data, 'keystone', 'credential-keys'),
    octaviaCa: join(data, 'octavia', 'ca'),
    glanceImages: join(data, 'glance', 'images'),
    novaState: join(data, 'nova'),
    runRoot,
    etc: join(runRoot, 'etc'),
    log: join(runRoot, 'log'),
    run: join(runRoot, 'run'),
    ovs: join(runRoot, 'ovs'),
    rabbit: join(runRoot, 'rabbit'),
    locks: join(runRoot, 'locks'),
  };
}
