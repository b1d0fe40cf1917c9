// The CCM once started. While leading it runs the phases "informers" and "controllers": the shared Node and Service
// caches, then, once they have synced, the controllers one after another. On shutdown (SIGTERM, or a lost Lease) it
// stops taking work, lets in-flight syncs finish, releases the Lease, flushes events, and stops the plugins and the
// server, all within SHUTDOWN_DEADLINE_MS.
import type { LeaderElector } from '../kube/leaderelection/elector.ts';
import type { EventRecorder } from '../kube/events/recorder.ts';
import type { Logger } from '../log/logger.ts';
import type { CCMOptions } from '../options/ccm-options.ts';
import type { CCMClients } from './clients.ts';
import { buildControllers, type RunningController } from './controllers.ts';
import { type SharedInformers, sharedInformers } from './informers.ts';
import { runningManagedControllers } from './metrics.ts';
import type { StartedPlugins } from './plugins.ts';
import { startStaggered } from './start-staggered.ts';

const SHUTDOWN_DEADLINE_MS = 30_000;
/** How long a SIGTERM waits for in-flight syncs before giving the Lease back anyway. */
const IN_FLIGHT_GRACE_MS = 10_000;
/** How long queued events may take to be written at shutdown. */
const EVENT_FLUSH_GRACE_MS = 5_000;
const MANAGER = 'cloud-controller-manager';

/** What the server phase started (app/serving.ts). */
export interface CCMServer {
  app: { close(): Promise<unknown> };
  url: string;
}

export interface RunningCCMParts {
  options: CCMOptions;
  clients: CCMClients;
  started: StartedPlugins;
  logger: Logger;
  /** Aborted by shutdown(): it ends the start, the controllers and the informers. */
  stopping: AbortController;
}

export class RunningCCM {
  /** Resolves with the process exit code once the CCM has stopped. */
  readonly done: Promise<number>;
  /** Set by the leader election phase; undefined with --leader-elect=false. */
  elector: LeaderElector | undefined;
  /** Set by the server phase; undefined with --secure-port=0. */
  server: CCMServer | undefined;
  readonly #parts: RunningCCMParts;
  readonly #recorders: EventRecorder[];
  readonly #runningControllers: ReturnType<typeof runningManagedControllers>;
  #controllers: RunningController[] = [];
  #informers: SharedInformers | undefined;
  #leading: Promise<void> | undefined;
  #exitCode = 0;
  #shuttingDown = false;
  #resolveDone: (code: number) => void = () => {};

  constructor(parts: RunningCCMParts) {
    this.#parts = parts;
    this.#recorders = [parts.started.events];
    this.#runningControllers = runningManagedControllers(parts.clients.registry);
    this.done = new Promise<number>((resolve) => (this.#resolveDone = resolve));
  }

  /** The controllers built while leading (for /healthz); none before. */
  get controllers(): readonly RunningController[] {
    return this.#controllers;
  }

  get shuttingDown(): boolean {
    return this.#shuttingDown;
  }

  /** Runs the informers and controllers until `signal` aborts; the promise settles when they have stopped. */
  lead(signal: AbortSignal): Promise<void> {
    this.#leading = this.#runControllers(signal);
    return this.#leading;
  }

  async #runControllers(signal: AbortSignal): Promise<void> {
    const { options, clients, started, logger } = this.#parts;
    this.#informers = sharedInformers(clients.client, logger, options.flags['min-resync-period']);
    // Built before the informers start, so that every handler sees the initial list.
    this.#controllers = buildControllers({
      options,
      client: clients.client,
      informers: this.#informers,
      provider: started.provider,
      logger,
      registry: clients.registry,
      leaseFresh: () => (this.elector ? this.elector.leaseFresh() : true),
      recorders: this.#recorders,
      loadBalancing: started.loadBalancing,
    });
    this.#informers.start();
    if (!(await this.#informers.waitForSync(signal))) return;
    logger.info('caches synced; starting controllers', { controllers: this.#controllers.map((c) => c.name) });
    await startStaggered(this.#controllers, options.flags['controller-start-interval'], signal, async (c) => {
      this.#runningControllers.inc({ name: c.name, manager: MANAGER });
      try {
        await c.run(signal);
      } finally {
        this.#runningControllers.dec({ name: c.name, manager: MANAGER });
      }
    });
  }

  /** The Lease was lost while running: shut down and exit 1. */
  lostLease(): void {
    this.#exitCode = 1;
    this.shutdown('lost the leader lease');
  }

  shutdown(reason: string): void {
    if (this.#shuttingDown) return;
    this.#shuttingDown = true;
    this.#parts.logger.info('shutting down', { reason });
    const forced = setTimeout(() => {
      this.#parts.logger.warn('shutdown deadline passed; exiting without finishing', {
        deadlineMs: SHUTDOWN_DEADLINE_MS,
      });
      this.#resolveDone(this.#exitCode);
    }, SHUTDOWN_DEADLINE_MS - 2_000);
    forced.unref();
    void this.#stop().then(() => {
      clearTimeout(forced);
      this.#resolveDone(this.#exitCode);
    });
  }

  async #stop(): Promise<void> {
    const { logger, stopping, started } = this.#parts;
    stopping.abort();
    // In-flight syncs may finish, but a sync queued behind a saturated rate limiter must not hold the Lease until
    // the forced exit: that exit does not release it, and a standby would wait a whole lease duration more.
    if (!(await settledWithin(this.#leading, IN_FLIGHT_GRACE_MS))) {
      logger.warn('in-flight syncs did not finish; releasing the lease anyway', { graceMs: IN_FLIGHT_GRACE_MS });
    }
    await this.#informers?.stop();
    await this.elector?.stop();
    await settledWithin(Promise.allSettled(this.#recorders.map((r) => r.flush())), EVENT_FLUSH_GRACE_MS);
    await started.plugins.stop().catch(() => undefined);
    await this.server?.app.close().catch(() => undefined);
  }
}

/** Waits for `work` to settle, but at most `ms`; says whether it settled in time. */
async function settledWithin(work: Promise<unknown> | undefined, ms: number): Promise<boolean> {
  if (!work) return true;
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  try {
    return await Promise.race([
      work.then(
        () => true,
        () => true,
      ),
      timedOut,
    ]);
  } finally {
    clearTimeout(timer);
  }
}
