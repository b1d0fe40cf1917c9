// State file writer. Mutations only mark the state dirty; a write happens at most `delayMs` later,
// writes never overlap, and everything dirtied while one runs is folded into the next. So 1,000
// quick creates cost a handful of full rewrites, none of them on the request path.
// Serializing blocks the event loop (a 20 MB state — 1,000 LBs x 1,000 backends — takes ~100 ms),
// so the delay stretches to SERIALIZE_BUDGET x the last serialization time: under heavy churn at
// most about a fifth of the loop goes to persistence.
// Each write goes to a temp file, is fsynced, then renamed over the state file: a crash leaves the
// previous or the new complete file, never a torn one, and loses at most the changes of the current
// delay (see delayMs) plus a write in flight. stop() flushes, so a clean stop loses nothing.
import { open, readFile, rename, rm } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { StateSnapshot } from './model/cloud.ts';

export async function loadState(path: string): Promise<StateSnapshot | null> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
  try {
    return JSON.parse(text) as StateSnapshot;
  } catch (err) {
    // Refuse to start rather than silently replacing a damaged file with an empty cloud.
    throw new Error(`state file ${path} is not valid JSON: ${(err as Error).message}`, { cause: err });
  }
}

async function writeAtomically(path: string, data: string): Promise<void> {
  const tmp = `${path}.${process.pid}.tmp`;
  const file = await open(tmp, 'w');
  try {
    await file.writeFile(data);
    await file.sync();
  } finally {
    await file.close();
  }
  try {
    await rename(tmp, path);
  } catch (err) {
    await rm(tmp, { force: true });
    throw err;
  }
  // Make the rename itself durable; some filesystems refuse to open a directory, which only weakens that.
  try {
    const dir = await open(dirname(path), 'r');
    await dir.sync().finally(() => dir.close());
  } catch {
    // The data is in place either way; only its durability across a power cut is weaker.
  }
}

const SERIALIZE_BUDGET = 4;

export class StateWriter {
  readonly path: string;
  readonly #delayMs: number;
  readonly #snapshot: () => StateSnapshot;
  #dirty = false;
  #timer: NodeJS.Timeout | null = null;
  #writing: Promise<void> | null = null;
  #lastError: Error | null = null;
  #lastSerializeMs = 0;
  writes = 0;

  constructor(path: string, delayMs: number, snapshot: () => StateSnapshot) {
    this.path = path;
    this.#delayMs = delayMs;
    this.#snapshot = snapshot;
  }

  markDirty(): void {
    this.#dirty = true;
    this.#schedule();
  }

  /** The current wait between a change and its write: the configured delay, stretched for large states. */
  get delayMs(): number {
    return Math.max(this.#delayMs, Math.ceil(SERIALIZE_BUDGET * this.#lastSerializeMs));
  }

  /** Writes everything dirtied so far and waits for it. Rethrows the last write error. */
  async flush(): Promise<void> {
    if (this.#timer) {
      clearTimeout(this.#timer);
      this.#timer = null;
    }
    for (;;) {
      if (this.#writing) {
        await this.#writing;
        if (this.#lastError) throw this.#lastError;
      } else if (this.#dirty) {
        this.#start();
      } else {
        return;
      }
    }
  }

  #schedule(): void {
    if (this.#timer || this.#writing) return;
    this.#timer = setTimeout(() => {
      this.#timer = null;
      this.#start();
    }, this.delayMs);
    this.#timer.unref();
  }

  #start(): void {
    if (this.#timer) {
      clearTimeout(this.#timer);
      this.#timer = null;
    }
    // One write at a time (they share the temp file); the running one reschedules when it ends.
    if (this.#writing) return;
    this.#dirty = false;
    const t0 = performance.now();
    const data = JSON.stringify(this.#snapshot());
    this.#lastSerializeMs = performance.now() - t0;
    this.#writing = writeAtomically(this.path, data)
      .then(
        () => {
          this.writes++;
          this.#lastError = null;
        },
        (err: unknown) => {
          // Keep the state dirty so the next attempt retries; flush() reports the error.
          this.#lastError = err instanceof Error ? err : new Error(String(err));
          this.#dirty = true;
          process.emitWarning(`devcloud: writing ${this.path} failed: ${this.#lastError.message}`);
        },
      )
      .finally(() => {
        this.#writing = null;
        if (this.#dirty && !this.#lastError) this.#schedule();
      });
  }
}
