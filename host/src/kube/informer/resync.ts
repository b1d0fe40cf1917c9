// Which handlers a periodic resync is for, as client-go's sharedIndexInformer decides it. Every handler has a
// period of its own (AddEventHandlerWithResyncPeriod; the informer's default otherwise). The informer checks every
// "check period": its default, lowered to a shorter handler period asked for before it started. After it started,
// a shorter period is raised to the check period. A handler is due when its period has passed since it last
// resynced; only due handlers hear of a resync.

/** client-go's minimumResyncPeriod: a shorter positive period is raised to it. */
const MINIMUM_RESYNC_PERIOD_MS = 1_000;

interface Entry {
  requestedMs: number;
  /** 0: never. */
  periodMs: number;
  nextAt: number;
}

/** determineResyncPeriod: a handler never resyncs faster than the informer checks, nor at all if it never checks. */
function effectivePeriod(requestedMs: number, checkPeriodMs: number): number {
  if (requestedMs === 0 || checkPeriodMs === 0) return 0;
  return Math.max(requestedMs, checkPeriodMs);
}

export class ResyncSchedule<H> {
  readonly defaultPeriodMs: number;
  private checkMs: number;
  private readonly entries = new Map<H, Entry>();

  constructor(defaultPeriodMs: number) {
    this.defaultPeriodMs = Math.max(0, defaultPeriodMs);
    this.checkMs = this.defaultPeriodMs;
  }

  /** How often the informer looks for due handlers (0: never). */
  get checkPeriodMs(): number {
    return this.checkMs;
  }

  /** Registers `handler`, asking for `requestedMs` (0: never); returns the period it gets. */
  add(handler: H, requestedMs: number, now: number, started: boolean): number {
    let requested = Math.max(0, requestedMs);
    if (requested > 0 && requested < MINIMUM_RESYNC_PERIOD_MS) requested = MINIMUM_RESYNC_PERIOD_MS;
    if (requested > 0 && requested < this.checkMs) {
      if (started) {
        requested = this.checkMs;
      } else {
        this.checkMs = requested;
        for (const entry of this.entries.values()) entry.periodMs = effectivePeriod(entry.requestedMs, this.checkMs);
      }
    }
    const periodMs = effectivePeriod(requested, this.checkMs);
    this.entries.set(handler, { requestedMs: requested, periodMs, nextAt: now + periodMs });
    return periodMs;
  }

  remove(handler: H): void {
    this.entries.delete(handler);
  }

  /** The handlers due at `now`; each is next due one period later. */
  due(now: number): H[] {
    const due: H[] = [];
    for (const [handler, entry] of this.entries) {
      if (entry.periodMs === 0 || now < entry.nextAt) continue;
      entry.nextAt = now + entry.periodMs;
      due.push(handler);
    }
    return due;
  }
}
