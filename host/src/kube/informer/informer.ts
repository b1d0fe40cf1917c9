// A shared informer in the spirit of client-go's reflector + DeltaFIFO + sharedIndexInformer, written against the
// failure modes of client-node's makeInformer:
//  - list, then watch from the list's resourceVersion; bookmarks advance it;
//  - 410 Gone/Expired (watch start or ERROR event) -> relist; objects that vanished meanwhile are delivered to
//    onDelete as DeletedFinalStateUnknown tombstones;
//  - any other failure (list or watch error, reset connection, undecodable event, idle connection) -> jittered,
//    capped exponential backoff, then resume watching from the last resourceVersion;
//  - handler exceptions and rejected promises are contained and logged: they never stop the informer or the
//    process.
// Objects are plain JSON (client/wire.ts); managedFields are dropped and an optional trim function can shrink
// objects further before they are cached.
import { type Clock, realClock, sleep, type Timer } from '../clock.ts';
import { apiErrorInfo, isGone, KubeApiError } from '../client/errors.ts';
import type { WatchEvent } from '../client/watch.ts';
import { type KubeObject, objectKey } from '../client/wire.ts';
import { type Logger, silentLogger } from '../../log/logger.ts';
import { Backoff, type BackoffOptions } from './backoff.ts';
import type { ListerWatcher } from './list-watch.ts';
import { ResyncSchedule } from './resync.ts';
import { CacheStore, type Store } from './store.ts';

/** An object deleted while the watch was down: `obj` is its last known state, not its final one. */
export interface DeletedFinalStateUnknown<T> {
  key: string;
  obj: T;
  finalStateUnknown: true;
}

export function isTombstone<T>(value: T | DeletedFinalStateUnknown<T>): value is DeletedFinalStateUnknown<T> {
  return (
    typeof value === 'object' && value !== null && (value as { finalStateUnknown?: unknown }).finalStateUnknown === true
  );
}

/** The object of a delete notification, unwrapping a tombstone. */
export function deletedObject<T>(value: T | DeletedFinalStateUnknown<T>): T {
  return isTombstone(value) ? value.obj : value;
}

type MaybePromise = void | Promise<void>;

export interface EventHandlers<T> {
  onAdd?(obj: T, isInInitialList: boolean): MaybePromise;
  /** Also called on relist for objects that still exist, and on each of this handler's resyncs with old === new. */
  onUpdate?(oldObj: T, newObj: T): MaybePromise;
  onDelete?(obj: T | DeletedFinalStateUnknown<T>): MaybePromise;
}

export interface InformerOptions<T> {
  /** For logs, e.g. "nodes". */
  name: string;
  listWatcher: ListerWatcher;
  /**
   * The resync period of handlers registered without one of their own: each cached object is redelivered to their
   * onUpdate this often (0/undefined: never, and then no handler resyncs, as in client-go).
   */
  resyncPeriodMs?: number;
  /** Shrinks an object before it is cached (after managedFields are dropped). */
  trim?: (obj: T) => T;
  logger?: Logger;
  clock?: Clock;
  backoff?: BackoffOptions;
  /** A watch that lived this long resets the backoff (default 60 s). */
  backoffResetAfterMs?: number;
  /** No event for this long means a dead connection (default 11 min, past the server's 5-10 min timeout). */
  watchIdleTimeoutMs?: number;
}

export interface InformerStats {
  lists: number;
  watches: number;
  failures: number;
  lastError: string | undefined;
}

export class Informer<T extends KubeObject> {
  readonly name: string;
  private readonly store = new CacheStore<T>();
  private readonly handlers = new Set<EventHandlers<T>>();
  private readonly lw: ListerWatcher;
  private readonly clock: Clock;
  private readonly log: Logger;
  private readonly trim: ((obj: T) => T) | undefined;
  private readonly backoff: Backoff;
  private readonly resetAfterMs: number;
  private readonly idleTimeoutMs: number;
  private readonly resync: ResyncSchedule<EventHandlers<T>>;
  private readonly stopController = new AbortController();
  private readonly syncWaiters: (() => void)[] = [];
  private running: Promise<void> | undefined;
  private resyncTimer: Timer | undefined;
  private resourceVersion = '';
  readonly stats: InformerStats = { lists: 0, watches: 0, failures: 0, lastError: undefined };

  constructor(options: InformerOptions<T>) {
    this.name = options.name;
    this.lw = options.listWatcher;
    this.clock = options.clock ?? realClock;
    this.log = (options.logger ?? silentLogger).child({ informer: options.name });
    this.trim = options.trim;
    this.backoff = new Backoff(options.backoff);
    this.resetAfterMs = options.backoffResetAfterMs ?? 60_000;
    this.idleTimeoutMs = options.watchIdleTimeoutMs ?? 11 * 60_000;
    this.resync = new ResyncSchedule(options.resyncPeriodMs ?? 0);
  }

  /** The cache. Read-only for callers. */
  get cache(): Store<T> {
    return this.store;
  }

  /**
   * Registers handlers; returns a function that removes them. Handlers added after the first sync receive an
   * onAdd for every cached object first, as with client-go's AddEventHandler. `resyncPeriodMs` is the handler's
   * own resync period (client-go's AddEventHandlerWithResyncPeriod; default: the informer's).
   */
  addEventHandler(handlers: EventHandlers<T>, resyncPeriodMs = this.resync.defaultPeriodMs): () => void {
    this.handlers.add(handlers);
    this.resync.add(handlers, resyncPeriodMs, this.clock.now(), this.running !== undefined);
    if (this.store.hasSynced()) {
      for (const obj of this.store.list()) this.call(handlers, 'onAdd', () => handlers.onAdd?.(obj, false));
    }
    return () => {
      this.handlers.delete(handlers);
      this.resync.remove(handlers);
    };
  }

  /** Starts listing and watching in the background; idempotent. */
  start(): void {
    this.running ??= this.loop().catch((err: unknown) => {
      // loop() handles its own failures; reaching here is a bug, but it must not become an unhandled rejection.
      this.log.error('informer loop crashed', { error: err });
    });
  }

  /** Stops watching and timers; resolves once the loop has exited. */
  async stop(): Promise<void> {
    this.stopController.abort();
    this.resyncTimer?.cancel();
    for (const resolve of this.syncWaiters.splice(0)) resolve();
    await this.running;
  }

  hasSynced(): boolean {
    return this.store.hasSynced();
  }

  /** Resolves true once synced, or false if the informer is stopped (or `signal` aborts) first. */
  waitForSync(signal?: AbortSignal): Promise<boolean> {
    if (this.store.hasSynced()) return Promise.resolve(true);
    if (this.stopController.signal.aborted || signal?.aborted) return Promise.resolve(false);
    return new Promise((resolve) => {
      const done = (): void => resolve(this.store.hasSynced());
      this.syncWaiters.push(done);
      signal?.addEventListener('abort', done, { once: true });
    });
  }

  /** The resourceVersion the next watch would resume from. */
  lastSyncResourceVersion(): string {
    return this.resourceVersion;
  }

  private get stopped(): boolean {
    return this.stopController.signal.aborted;
  }

  private async loop(): Promise<void> {
    const signal = this.stopController.signal;
    let needList = true;
    let consecutiveGone = 0;
    while (!this.stopped) {
      try {
        if (needList) {
          await this.listAndReplace(signal);
          needList = false;
        }
        const started = this.clock.now();
        await this.watchOnce(signal);
        if (this.stopped) break;
        this.log.v(4).info('Watch closed', { resourceVersion: this.resourceVersion });
        consecutiveGone = 0;
        // A watch the server ends after its timeout is normal; one that closes at once is not: back off.
        if (this.clock.now() - started >= this.resetAfterMs) this.backoff.reset();
        else await sleep(this.clock, this.backoff.next(), signal);
      } catch (err) {
        if (this.stopped) break;
        this.stats.failures++;
        this.stats.lastError = apiErrorInfo(err).message;
        if (isGone(err)) {
          // Our resourceVersion was compacted away: only a fresh list can tell what changed.
          needList = true;
          consecutiveGone++;
          this.log.info('resourceVersion expired, relisting', { resourceVersion: this.resourceVersion });
          if (consecutiveGone > 1) await sleep(this.clock, this.backoff.next(), signal);
        } else {
          const delay = this.backoff.next();
          this.log.warn(needList ? 'list failed' : 'watch failed', {
            error: apiErrorInfo(err).message,
            resourceVersion: this.resourceVersion,
            retryInMs: Math.round(delay),
          });
          await sleep(this.clock, delay, signal);
        }
      }
    }
  }

  private async listAndReplace(signal: AbortSignal): Promise<void> {
    this.stats.lists++;
    this.log.v(3).info('Listing and watching');
    const list = await this.lw.list(signal);
    if (this.stopped) return;
    const initial = !this.store.hasSynced();
    const seen = new Set<string>();
    for (const raw of list.items) {
      const obj = this.prepare(raw);
      const key = objectKey(obj);
      seen.add(key);
      const old = this.store.set(key, obj);
      if (old) this.notify('onUpdate', (h) => h.onUpdate?.(old, obj));
      else this.notify('onAdd', (h) => h.onAdd?.(obj, initial));
    }
    for (const [key, old] of [...this.store.entries()]) {
      if (seen.has(key)) continue;
      this.store.delete(key);
      const tombstone: DeletedFinalStateUnknown<T> = { key, obj: old, finalStateUnknown: true };
      this.notify('onDelete', (h) => h.onDelete?.(tombstone));
    }
    this.resourceVersion = list.resourceVersion;
    if (initial) {
      this.store.markSynced();
      for (const resolve of this.syncWaiters.splice(0)) resolve();
      this.scheduleResync();
      this.log.info('synced', { objects: this.store.size, resourceVersion: this.resourceVersion });
    }
  }

  private async watchOnce(stopSignal: AbortSignal): Promise<void> {
    const idle = new AbortController();
    const signal = AbortSignal.any([stopSignal, idle.signal]);
    // One timer for the whole watch: an event only records when it came, and the timer, when it fires, waits again
    // for what is left. Re-arming a timer per event cost a setTimeout and a clearTimeout for every event of a burst.
    let lastEventAt = this.clock.now();
    let idleTimer: Timer | undefined;
    const armIdle = (ms: number): void => {
      idleTimer = this.clock.setTimer(ms, () => {
        const silentFor = this.clock.now() - lastEventAt;
        if (silentFor >= this.idleTimeoutMs) idle.abort(new Error(`watch silent for ${this.idleTimeoutMs} ms`));
        else armIdle(this.idleTimeoutMs - silentFor);
      });
    };
    this.stats.watches++;
    armIdle(this.idleTimeoutMs);
    try {
      const events = await this.lw.watch(this.resourceVersion, signal);
      for await (const event of events) {
        if (this.stopped) return;
        lastEventAt = this.clock.now();
        this.apply(event);
      }
    } catch (err) {
      // An aborted fetch reports AbortError; report why we aborted instead.
      if (idle.signal.aborted && !this.stopped) throw idle.signal.reason;
      throw err;
    } finally {
      idleTimer?.cancel();
    }
  }

  private apply(event: WatchEvent): void {
    if (event.type === 'ERROR') {
      const info = apiErrorInfo(event.object);
      throw new KubeApiError(info.code === undefined ? { ...info, code: 500 } : info);
    }
    const rv = event.object.metadata?.resourceVersion;
    if (event.type === 'BOOKMARK') {
      if (rv) this.resourceVersion = rv;
      return;
    }
    const obj = this.prepare(event.object);
    const key = objectKey(obj);
    if (event.type === 'DELETED') {
      this.store.delete(key);
      this.notify('onDelete', (h) => h.onDelete?.(obj));
    } else {
      const old = this.store.set(key, obj);
      if (old) this.notify('onUpdate', (h) => h.onUpdate?.(old, obj));
      else this.notify('onAdd', (h) => h.onAdd?.(obj, false));
    }
    if (rv) this.resourceVersion = rv;
  }

  private prepare(raw: KubeObject): T {
    if (raw.metadata && 'managedFields' in raw.metadata) {
      // A copy without it rather than `delete`, which turns the object into a slow dictionary: on Node 24 a cached
      // Node's metadata then took about half as much memory again, and reads of it were slower (bench/upstream/rss.ts
      // measures the steady RSS with thousands of cached Nodes).
      const { managedFields: _dropped, ...metadata } = raw.metadata;
      raw.metadata = metadata;
    }
    const obj = raw as T;
    return this.trim ? this.trim(obj) : obj;
  }

  /**
   * Every check period, the due handlers hear onUpdate(obj, obj) for every cached object. Node's timers may fire a
   * millisecond before the clock shows the delay passed (Go's never fire early); each check therefore counts as
   * happening no earlier than it was scheduled, else a handler due then would wait a whole extra period.
   */
  private scheduleResync(from = this.clock.now()): void {
    const period = this.resync.checkPeriodMs;
    if (!(period > 0) || this.stopped) return;
    const checkAt = from + period;
    this.resyncTimer = this.clock.setTimer(checkAt - this.clock.now(), () => {
      const now = Math.max(this.clock.now(), checkAt);
      const due = this.resync.due(now).filter((h) => this.handlers.has(h));
      for (const obj of due.length > 0 ? this.store.list() : []) {
        for (const h of due) this.call(h, 'onUpdate', () => h.onUpdate?.(obj, obj));
      }
      this.scheduleResync(Math.max(now, this.clock.now()));
    });
  }

  private notify(what: keyof EventHandlers<T>, fn: (h: EventHandlers<T>) => MaybePromise): void {
    for (const handlers of this.handlers) this.call(handlers, what, () => fn(handlers));
  }

  private call(_handlers: EventHandlers<T>, what: string, fn: () => MaybePromise): void {
    try {
      const result = fn();
      if (result instanceof Promise) {
        result.catch((err: unknown) => this.log.error(`${what} handler failed`, { error: err }));
      }
    } catch (err) {
      this.log.error(`${what} handler threw`, { error: err });
    }
  }
}
