// A module in a file, typically a key of a mounted ConfigMap. Kubelet updates such a volume atomically: it writes a
// new timestamped directory, then renames a fresh symlink over `<dir>/..data`; `<dir>/<key>` is a symlink to
// `..data/<key>`. So a complete revision is whatever `<dir>/<key>` resolves to at one instant, and the directory it
// resolves into is never modified afterwards. We therefore resolve the path first and read the module and its
// `.sig` through the resolved target, never through the symlink (which could switch between the two reads).
//
// Noticing: fs.watch on the directory reports the `..data` rename at once; a poll of the resolved target covers
// what inotify misses (other file systems, a watcher that died, a plain file rewritten in place); it runs every
// 800 ms so that, timer jitter and the read included, a swap is still noticed within a second.
import { type FSWatcher, watch } from 'node:fs';
import { realpath, stat } from 'node:fs/promises';
import { basename, dirname } from 'node:path';
import { type Logger, silentLogger } from '../../log/logger.ts';
import { errorMessage } from '../../util/error-message.ts';
import { KEY_FILE_CAP, moduleFileCap, readRegularFile } from '../../util/read-regular-file.ts';
import { checkModuleSize, DEFAULT_MAX_MODULE_MB, ModuleGzipError } from '../module/module-gzip.ts';
import {
  type RevisionSource,
  type RevisionListener,
  signatureName,
  SourceError,
  type SourceRevision,
} from './source.ts';

export interface FileSourceOptions {
  path: string;
  /** How often the resolved target is checked besides fs.watch (default 800 ms: a swap is seen within 1 s). */
  pollIntervalMs?: number;
  /** fs.watch on the directory (default true; tests turn it off to exercise the poll alone). */
  watch?: boolean;
  logger?: Logger;
  /** A module file larger than this is refused by its size, never read (default limits.maxModuleMB's). */
  maxBytes?: number;
}

interface Snapshot {
  revision: SourceRevision;
  fingerprint: string;
}

/** A revision refused by its size, with the fingerprint of the stat that judged it: the key its warning goes by. */
class RefusedRevision extends Error {
  override name = 'RefusedRevision';
  readonly fingerprint: string;
  constructor(fingerprint: string, reason: ModuleGzipError) {
    super(reason.message, { cause: reason });
    this.fingerprint = fingerprint;
  }
}

export class FileSource implements RevisionSource {
  readonly description: string;
  readonly #path: string;
  readonly #pollIntervalMs: number;
  readonly #useWatch: boolean;
  readonly #log: Logger;
  readonly #maxBytes: number;
  #fingerprint = '';
  /** The revision last refused for its size: warned about once. */
  #refused = '';
  #listener: RevisionListener | undefined;
  #watcher: FSWatcher | undefined;
  #timer: NodeJS.Timeout | undefined;
  #checking: Promise<void> | undefined;
  #checkAgain = false;
  #stopped = false;

  constructor(options: FileSourceOptions) {
    this.#path = options.path;
    this.#pollIntervalMs = options.pollIntervalMs ?? 800;
    this.#useWatch = options.watch ?? true;
    this.#log = options.logger ?? silentLogger;
    this.#maxBytes = options.maxBytes ?? DEFAULT_MAX_MODULE_MB * 1048576;
    this.description = `file ${options.path}`;
  }

  async start(onRevision: RevisionListener): Promise<SourceRevision> {
    let first: Snapshot | undefined;
    // A revision being written right now (a plain file) is retried a few times before start-up gives up.
    for (let attempt = 0; first === undefined; attempt++) {
      try {
        first = await this.#read();
      } catch (err) {
        throw new SourceError(`cannot read plugin ${this.#path}: ${errorMessage(err)}`, { cause: err });
      }
      if (first === undefined) {
        if (attempt >= 20) throw new SourceError(`plugin ${this.#path} kept changing while it was read`);
        await new Promise((r) => setTimeout(r, 50));
      }
    }
    this.#fingerprint = first.fingerprint;
    this.#listener = onRevision;
    this.#watchDirectory();
    this.#timer = setInterval(() => this.#trigger(), this.#pollIntervalMs);
    this.#timer.unref();
    return first.revision;
  }

  /**
   * Looks at the file now, as a poll tick does, and resolves once a look begun after this call has ended (at once
   * when stopped): the positive sign that a change, or the lack of one, has been seen.
   */
  async checkNow(): Promise<void> {
    this.#trigger();
    // A look already under way may have begun before this call: the trigger then queued one more after it.
    while (this.#checking !== undefined) await this.#checking;
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    clearInterval(this.#timer);
    this.#watcher?.close();
    this.#watcher = undefined;
    await this.#checking;
  }

  #watchDirectory(): void {
    if (this.#stopped || !this.#useWatch || this.#watcher !== undefined) return;
    try {
      // Not recursive: the `..data` rename happens in this directory, and that is the event that matters.
      this.#watcher = watch(dirname(this.#path), { persistent: false }, () => this.#trigger());
      this.#watcher.on('error', (err) => {
        this.#log.debug('plugin directory watch failed; polling only until it is re-established', {
          path: this.#path,
          error: err.message,
        });
        this.#watcher?.close();
        this.#watcher = undefined;
      });
    } catch (err) {
      this.#log.debug('cannot watch the plugin directory; polling only', {
        path: this.#path,
        error: errorMessage(err),
      });
    }
  }

  /** Runs one check at a time; a trigger during a check runs one more afterwards (never loses a change). */
  #trigger(): void {
    if (this.#stopped) return;
    if (this.#checking !== undefined) {
      this.#checkAgain = true;
      return;
    }
    this.#checking = this.#check().finally(() => {
      this.#checking = undefined;
      if (this.#checkAgain) {
        this.#checkAgain = false;
        this.#trigger();
      }
    });
  }

  async #check(): Promise<void> {
    this.#watchDirectory();
    let snapshot: Snapshot | undefined;
    const startedAt = Date.now();
    try {
      if ((await this.#currentFingerprint()) === this.#fingerprint) return;
      snapshot = await this.#read(startedAt);
    } catch (err) {
      if (err instanceof RefusedRevision) return this.#warnRefused(err);
      // Mid-swap the old timestamped directory can vanish under us, or the key can be absent for a moment:
      // keep serving what we have and look again at the next tick.
      this.#log.debug('plugin file not readable right now', { path: this.#path, error: errorMessage(err) });
      return;
    }
    if (snapshot === undefined || snapshot.fingerprint === this.#fingerprint || this.#stopped) return;
    this.#fingerprint = snapshot.fingerprint;
    this.#listener?.(snapshot.revision);
  }

  // Keyed by the stat that judged the revision: a second stat here could already see the next revision, and warn
  // about this one twice under that one's key.
  #warnRefused(refused: RefusedRevision): void {
    if (refused.fingerprint === this.#refused) return;
    this.#refused = refused.fingerprint;
    this.#log.warn('plugin module refused; keeping the one serving', { path: this.#path, error: refused.message });
  }

  async #currentFingerprint(): Promise<string> {
    const target = await realpath(this.#path);
    return fingerprint(target, await stat(target), await statOrUndefined(signatureName(target)));
  }

  /** One consistent revision, or undefined when the file changed while it was read (try again later). */
  async #read(noticedAt = Date.now()): Promise<Snapshot | undefined> {
    const target = await realpath(this.#path);
    const sigPath = signatureName(target);
    const before = await stat(target);
    const sigBefore = await statOrUndefined(sigPath);
    const print = fingerprint(target, before, sigBefore);
    try {
      checkModuleSize(before.size, basename(target), this.#maxBytes);
    } catch (err) {
      if (err instanceof ModuleGzipError) throw new RefusedRevision(print, err);
      throw err;
    }
    // Opened as a regular file within the cap: a FIFO or a device put in the module's place is refused, not read.
    const bytes = new Uint8Array(await readRegularFile(target, moduleFileCap(this.#maxBytes)));
    let signature: string | undefined;
    try {
      signature = (await readRegularFile(sigPath, KEY_FILE_CAP)).toString('utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
    // Only a file rewritten in place can change under us (a kubelet revision directory never does).
    const after = fingerprint(target, await stat(target), await statOrUndefined(sigPath));
    if (after !== print || bytes.length !== before.size) return undefined;
    return {
      fingerprint: print,
      revision: {
        bytes,
        signature: signature?.trim() === '' ? undefined : signature?.trim(),
        origin: target === this.#path ? `file ${this.#path}` : `file ${this.#path} (${target})`,
        object: undefined,
        noticedAt,
      },
    };
  }
}

interface StatLike {
  ino: number;
  size: number;
  mtimeMs: number;
  ctimeMs: number;
}

function fingerprint(target: string, module: StatLike, sig: StatLike | undefined): string {
  const part = (s: StatLike | undefined): string => (s ? `${s.ino}:${s.size}:${s.mtimeMs}:${s.ctimeMs}` : '-');
  return `${target}|${part(module)}|${part(sig)}`;
}

async function statOrUndefined(path: string): Promise<StatLike | undefined> {
  try {
    return await stat(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}
