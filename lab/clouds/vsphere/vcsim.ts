// vcsim (govmomi's vCenter simulator, built by scripts/build-vsphere.sh) on a free loopback port: credentials checked,
// TLS with the run's test CA, an empty inventory the tests seed (inventory.ts), and govc wired to it. stop() ends it
// and removes its directory; a run killed too hard to do so is reaped by the next start (its owner file).
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { cacheDir, GiveUp, waitFor } from '../../controlplane/index.ts';
import {
  freePort,
  ManagedProcess,
  onProcessExit,
  reapStaleControlPlanes,
  writeOwnerFile,
} from '../../process/index.ts';
import { createTestCa, type TestCa } from './tls.ts';

const execFileP = promisify(execFile);
const DIR_PREFIX = 'wasm-ccm-vcsim-';
const BIND_ATTEMPTS = 3;

export interface VcsimOptions {
  /** The user vcsim accepts (default `ccm-admin`; vcsim 0.46.3 refuses every login of a name with an `@`). */
  username?: string;
  /** Its password (default: random, with characters XML must escape). */
  password?: string;
  /** Log every SOAP request and answer to `trace.log` in the run directory. */
  trace?: boolean;
  readyTimeoutMs?: number;
}

/** A binary of scripts/build-vsphere.sh; throws with the command that builds it when missing. */
export function vsphereBinary(name: 'vcsim' | 'govc' | 'vsphere-ccm'): string {
  const path = join(cacheDir(), 'bin', name);
  if (!existsSync(path)) throw new Error(`${name} is not built: expected ${path}. Run 'npm run build:vsphere'.`);
  return path;
}

export class Vcsim {
  /** `127.0.0.1:<port>`: the credentials file's `server`. */
  readonly server: string;
  /** `https://127.0.0.1:<port>/sdk`. */
  readonly sdkUrl: string;
  readonly username: string;
  readonly password: string;
  readonly ca: TestCa;
  /** The run's directory (vcsim.log, trace.log, the CA). */
  readonly dir: string;
  #process: ManagedProcess;
  readonly #options: VcsimOptions;
  readonly #removeExitHook: () => void;

  private constructor(init: { dir: string; ca: TestCa; port: number; process: ManagedProcess; options: VcsimOptions }) {
    this.dir = init.dir;
    this.ca = init.ca;
    this.server = `127.0.0.1:${init.port}`;
    this.sdkUrl = `https://${this.server}/sdk`;
    this.username = init.options.username ?? DEFAULT_USERNAME;
    this.password = init.options.password ?? '';
    this.#process = init.process;
    this.#options = init.options;
    this.#removeExitHook = onProcessExit(() => rmSync(init.dir, { recursive: true, force: true }));
  }

  static async start(options: VcsimOptions = {}): Promise<Vcsim> {
    const binary = vsphereBinary('vcsim');
    vsphereBinary('govc');
    const parent = tmpdir();
    reapStaleControlPlanes(parent, DIR_PREFIX);
    const dir = mkdtempSync(join(parent, DIR_PREFIX));
    try {
      const ca = await createTestCa(dir);
      const settings = { ...options, password: options.password ?? randomPassword() };
      const { port, process } = await launch(binary, dir, ca, settings);
      return new Vcsim({ dir, ca, port, process, options: settings });
    } catch (err) {
      rmSync(dir, { recursive: true, force: true });
      throw err;
    }
  }

  get running(): boolean {
    return this.#process.running;
  }

  get logPath(): string {
    return this.#process.logPath;
  }

  /** Runs govc against this vcsim (as its user, trusting the CA); resolves with its stdout, rejects with stderr. */
  async govc(...args: string[]): Promise<string> {
    const env = {
      ...process.env,
      GOVC_URL: this.sdkUrl,
      GOVC_USERNAME: this.username,
      GOVC_PASSWORD: this.password,
      GOVC_TLS_CA_CERTS: this.ca.caFile,
      GOVC_INSECURE: 'false',
      // govc keeps its sessions in files: in the run's directory, not the user's home.
      GOVMOMI_HOME: join(this.dir, 'govmomi'),
    };
    try {
      const { stdout } = await execFileP(vsphereBinary('govc'), args, { env, maxBuffer: 16 * 1048576 });
      return stdout;
    } catch (err) {
      const stderr = (err as { stderr?: string }).stderr ?? String(err);
      throw new Error(`govc ${args.slice(0, 4).join(' ')} failed: ${stderr.trim()}`, { cause: err });
    }
  }

  /** The keys of the SOAP sessions vcsim holds, but govc's own. */
  async soapSessions(): Promise<string[]> {
    const out = JSON.parse(await this.govc('session.ls', '-json')) as SessionList;
    const own = out.currentSession?.key;
    return (out.sessionList ?? []).map((s) => s.key).filter((key) => key !== own);
  }

  /** Ends every SOAP session but govc's own (TerminateSession): their next request is refused, NotAuthenticated. */
  async terminateSoapSessions(): Promise<number> {
    const keys = await this.soapSessions();
    if (keys.length > 0) await this.govc('session.rm', ...keys);
    return keys.length;
  }

  /**
   * Stops vcsim and starts it again on the same port, certificate and credentials: every session (SOAP and REST) is
   * gone, and so is the seeded inventory.
   */
  async restart(): Promise<void> {
    await this.#process.stop();
    const port = Number(this.server.split(':')[1]);
    this.#process = await launch(vsphereBinary('vcsim'), this.dir, this.ca, this.#options, port).then((l) => l.process);
  }

  /** Stops vcsim and removes its directory. Safe to call twice. */
  async stop(): Promise<void> {
    await this.#process.stop();
    rmSync(this.dir, { recursive: true, force: true });
    this.#removeExitHook();
  }
}

export function startVcsim(options?: VcsimOptions): Promise<Vcsim> {
  return Vcsim.start(options);
}

const DEFAULT_USERNAME = 'ccm-admin';

interface SessionList {
  sessionList?: Array<{ key: string }> | null;
  currentSession?: { key: string } | null;
}

function randomPassword(): string {
  return `p&<"'>${Math.random().toString(36).slice(2, 12)}`;
}

// Starts vcsim on `port`, or on a free port, trying another when the one picked was taken meanwhile (vcsim panics).
async function launch(
  binary: string,
  dir: string,
  ca: TestCa,
  options: VcsimOptions,
  port?: number,
): Promise<{ port: number; process: ManagedProcess }> {
  for (let attempt = 1; ; attempt++) {
    const listen = port ?? (await freePort());
    const process = new ManagedProcess('vcsim', binary, vcsimArgs(dir, ca, options, listen), {
      logPath: join(dir, 'vcsim.log'),
    });
    writeOwnerFile(dir, [process.pid ?? 0]);
    try {
      await waitFor(
        `vcsim to listen on 127.0.0.1:${listen}`,
        async () => {
          if (!process.running) throw new GiveUp('vcsim exited');
          return process.tail().includes('GOVC_URL=');
        },
        options.readyTimeoutMs ?? 30_000,
        () => `vcsim log tail:\n${process.tail()}`,
      );
      return { port: listen, process };
    } catch (err) {
      await process.stop();
      const taken = process.tail().includes('address already in use');
      if (!taken || port !== undefined || attempt >= BIND_ATTEMPTS) throw err;
    }
  }
}

// An empty inventory (no datacenter, no standalone host): the tests seed what they need.
function vcsimArgs(dir: string, ca: TestCa, options: VcsimOptions, port: number): string[] {
  return [
    '-l',
    `127.0.0.1:${port}`,
    '-username',
    options.username ?? DEFAULT_USERNAME,
    '-password',
    options.password ?? '',
    '-tlscert',
    ca.certFile,
    '-tlskey',
    ca.keyFile,
    '-dc',
    '0',
    '-standalone-host',
    '0',
    ...(options.trace === true ? ['-trace', '-trace-file', join(dir, 'trace.log')] : []),
  ];
}
