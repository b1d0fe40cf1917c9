// The two wasm-ccm replicas, kept at two as a Deployment would: a replica that exits (SIGKILL, a lost Lease) is
// replaced after a second. Each replica is a real child process serving /metrics on loopback; its log is followed
// for leadership, controller start and errors, and its RSS, V8 heap and open file descriptors are sampled.
import { readdirSync } from 'node:fs';
import { CCMProcess, type LogRecord } from '../ccm/index.ts';
import type { ControlPlaneInfo } from '../controlplane/index.ts';
import { freePort, httpsGetInsecure } from '../process/index.ts';
import { memoryStats, parsePromText, sumOf } from '../measure/index.ts';
import { LogTail } from './log-tail.ts';

export interface ResourceSample {
  /** ms since the run started. */
  t: number;
  rssMb: number;
  heapMb: number | undefined;
  /** V8's external memory (ArrayBuffers, among them the plugin channels and Wasm memories' wrappers). */
  externalMb: number | undefined;
  fds: number;
  /** The main thread, Node's and V8's, and one per plugin instance. */
  threads: number;
}

export class Replica {
  readonly ccm: CCMProcess;
  readonly name: string;
  readonly base: string;
  /** The leader-election identity, once it led (its "started leading" record names it). */
  identity = '';
  /** When it logged "started leading" and "caches synced; starting controllers" (ms since the epoch). */
  startedLeadingAt: number | undefined;
  controllersAt: number | undefined;
  readonly samples: ResourceSample[] = [];
  pluginRestarts = 0;
  paused = false;
  readonly #tail: LogTail;

  constructor(ccm: CCMProcess, name: string, base: string) {
    this.ccm = ccm;
    this.name = name;
    this.base = base;
    this.#tail = new LogTail(ccm.process.logPath);
  }

  get running(): boolean {
    return this.ccm.process.running;
  }

  get pid(): number | undefined {
    return this.ccm.process.pid;
  }

  /** New log records; notes leadership and controller start on the way. */
  readLog(): LogRecord[] {
    const records = this.#tail.read();
    for (const r of records) {
      if (r.msg === 'started leading' && typeof r.identity === 'string') {
        this.identity = r.identity;
        this.startedLeadingAt ??= typeof r.ts === 'number' ? r.ts : Date.now();
      }
      if (r.msg === 'caches synced; starting controllers') {
        this.controllersAt ??= typeof r.ts === 'number' ? r.ts : Date.now();
      }
    }
    return records;
  }

  /** RSS and fds from /proc, heap and plugin instance restarts from /metrics. Skipped while paused or gone. */
  async sample(t: number): Promise<void> {
    const pid = this.pid;
    if (pid === undefined || !this.running || this.paused) return;
    let rssMb: number;
    let threads: number;
    let fds: number;
    try {
      ({ rssMb, threads } = memoryStats(pid));
      fds = readdirSync(`/proc/${pid}/fd`).length;
    } catch {
      return; // exited meanwhile
    }
    let heapMb: number | undefined;
    let externalMb: number | undefined;
    const mb = (bytes: number): number => Math.round((bytes / 1048576) * 10) / 10;
    try {
      const res = await httpsGetInsecure(`${this.base}/metrics`, { timeoutMs: 2_000 });
      if (res.status === 200) {
        const samples = parsePromText(res.body);
        heapMb = mb(sumOf(samples, 'nodejs_heap_size_used_bytes'));
        externalMb = mb(sumOf(samples, 'nodejs_external_memory_bytes'));
        this.pluginRestarts = sumOf(samples, 'wasm_ccm_plugin_instance_restarts_total');
      }
    } catch {
      // Busy or starting: the heap is missing from this sample.
    }
    this.samples.push({ t, rssMb, heapMb, externalMb, fds, threads });
  }
}

export interface ReplicaSetOptions {
  info: ControlPlaneInfo;
  token: string;
  args: readonly string[];
  /** How long a Deployment-like restart waits after an exit. */
  restartDelayMs: number;
  /** Node options and environment added for each replica (the image's, for a soak). */
  nodeArgs?: readonly string[];
  env?: Readonly<Record<string, string>>;
}

export class ReplicaSet {
  readonly all: Replica[] = [];
  #count = 0;
  #stopped = false;
  readonly #pending = new Set<Promise<void>>();

  readonly #o: ReplicaSetOptions;

  constructor(options: ReplicaSetOptions) {
    this.#o = options;
  }

  get live(): Replica[] {
    return this.all.filter((r) => r.running);
  }

  async start(count: number): Promise<void> {
    for (let i = 0; i < count; i++) await this.spawn();
  }

  /** The replica whose identity holds the Lease, if it is one of ours. */
  byIdentity(identity: string): Replica | undefined {
    return identity === '' ? undefined : this.all.find((r) => r.identity === identity);
  }

  private async spawn(): Promise<Replica> {
    const port = await freePort();
    const name = `ccm-${++this.#count}`;
    const ccm = new CCMProcess({
      info: this.#o.info,
      token: this.#o.token,
      nodeArgs: [...(this.#o.nodeArgs ?? [])],
      env: this.#o.env,
      args: [...this.#o.args, `--secure-port=${port}`, '--bind-address=127.0.0.1', '--delegated-auth=false'],
    });
    const replica = new Replica(ccm, name, `https://127.0.0.1:${port}`);
    this.all.push(replica);
    // Replaced once it exits, whatever the reason, until the set stops.
    const replaced = ccm.process.exited.then(async () => {
      if (this.#stopped) return;
      await new Promise((r) => setTimeout(r, this.#o.restartDelayMs));
      if (!this.#stopped) await this.spawn();
    });
    this.#pending.add(replaced);
    void replaced.finally(() => this.#pending.delete(replaced));
    return replica;
  }

  /** SIGCONTs paused replicas, then stops every replica (SIGTERM: each releases the Lease). */
  async stop(): Promise<void> {
    this.#stopped = true;
    for (const r of this.live) if (r.paused) r.ccm.process.signal('SIGCONT');
    await Promise.all(this.live.map((r) => r.ccm.stop()));
  }
}
