// One configured provider, kept current with its source. Every revision the source reports is judged in order —
// decompressed first when it came gzipped (revision-module.ts), then digest pin, Ed25519 signature, a full load as a
// candidate (Wasm checks, ABI major, exports, ccm_initialize on a warm pool), then the same providerName and every
// capability this provider serves — and only a candidate that passes everything replaces the running plugin
// (optionally after a shadow period). A refused candidate changes nothing: the current plugin keeps serving, and a
// Warning Event on the ConfigMap, a log line and wasm_ccm_plugin_swaps_total{result="rejected"} say why. Revisions
// arriving during a swap are coalesced: only the newest one is judged next.
import type { KubeObject } from '../../kube/client/wire.ts';
import { type EventReason, type EventSinkOf, recordReason } from '../../kube/events/reasons.ts';
import type { Logger } from '../../log/logger.ts';
import type { Capability } from '../../abi/index.ts';
import { errorMessage } from '../../util/error-message.ts';
import type { ProviderConfig } from '../config/types.ts';
import { sha256Hex } from '../module/plugin-source.ts';
import type { RevisionSource, SourceRevision } from './source.ts';
import { signatureName } from './source.ts';
import type { CandidateInfo, CandidateLoader, LoadedCandidate, PoolStats } from './candidate.ts';
import { type RevisionModule, unpackRevision, verifyModuleSignature } from './revision-module.ts';
import { ShadowSession, type ShadowSummary } from './shadow.ts';
import type { SwapMetrics } from './swap-metrics.ts';
import { SwappableProvider } from './swappable-provider.ts';

/** Where PluginRejected / PluginSwapped go: an EventRecorder in the process. */
export type SwapEvents = EventSinkOf;

export interface HotSwapperOptions {
  config: ProviderConfig;
  source: RevisionSource;
  load: CandidateLoader;
  /** The providerName the first module must describe (--cloud-provider, for the default provider). */
  expectedProviderName?: string;
  events?: SwapEvents;
  metrics: SwapMetrics;
  logger: Logger;
  /** Passed to SwappableProvider (default 60 s). */
  drainTimeoutMs?: number;
}

class RejectedError extends Error {
  override name = 'RejectedError';
}

export interface RejectedCandidate {
  sha256: string;
  /** Known when the module got as far as describing itself. */
  version: string | undefined;
  reason: string;
  time: string;
  origin: string;
}

export interface ProviderStatus {
  name: string;
  providerName: string;
  version: string;
  sha256: string;
  abi: string;
  capabilities: Capability[];
  serves: Capability[];
  source: string;
  origin: string;
  since: string;
  instances: PoolStats;
  swaps: { applied: number; rejected: number };
  lastRejected: RejectedCandidate | null;
  lastShadow: ShadowSummary | null;
}

interface Current {
  candidate: LoadedCandidate;
  origin: string;
  since: Date;
}

export class HotSwapper {
  readonly name: string;
  readonly provider: SwappableProvider;
  readonly #options: HotSwapperOptions;
  readonly #log: Logger;
  #current: Current;
  #pending: SourceRevision | undefined;
  #working: Promise<void> | undefined;
  /** With the digest of the bytes as shipped (compressed or not), so the same refused bytes are not judged again. */
  #lastRejected: (RejectedCandidate & { signature: string | undefined; shippedSha256: string }) | undefined;
  #lastShadow: ShadowSummary | undefined;
  readonly #counts = { applied: 0, rejected: 0 };
  readonly #stop = new AbortController();

  /** Reads the source's current module and verifies it like any candidate; rejects with the reason. */
  static async start(options: HotSwapperOptions): Promise<HotSwapper> {
    const log = options.logger.child({ provider: options.config.name });
    // Revisions reported before the swapper exists wait here; only the newest matters.
    const early: { swapper?: HotSwapper; revision?: SourceRevision } = {};
    const first = await options.source.start((revision) => {
      if (early.swapper) early.swapper.offer(revision);
      else early.revision = revision;
    });
    let candidate: LoadedCandidate | undefined;
    try {
      const unpacked = await unpackRevision(options.config, first);
      candidate = await judge(options, unpacked, sha256Hex(unpacked.revision.bytes), undefined);
      if (options.expectedProviderName !== undefined && candidate.info.providerName !== options.expectedProviderName) {
        throw new RejectedError(
          `--cloud-provider: "${options.expectedProviderName}" does not match the plugin's provider name "${candidate.info.providerName}"`,
        );
      }
    } catch (err) {
      await candidate?.close();
      await options.source.stop();
      throw new RejectedError(`provider ${options.config.name} (${options.source.description}): ${errorMessage(err)}`, {
        cause: err,
      });
    }
    const swapper = new HotSwapper(options, log, { candidate, origin: first.origin, since: new Date() });
    log.info('plugin loaded', { ...summary(candidate.info), origin: first.origin });
    early.swapper = swapper;
    if (early.revision) swapper.offer(early.revision);
    return swapper;
  }

  private constructor(options: HotSwapperOptions, log: Logger, current: Current) {
    this.#options = options;
    this.#log = log;
    this.name = options.config.name;
    this.#current = current;
    const serves = new Set(options.config.capabilities ?? current.candidate.info.capabilities);
    this.provider = new SwappableProvider(
      { provider: current.candidate.provider, close: () => current.candidate.close() },
      { serves, drainTimeoutMs: options.drainTimeoutMs, logger: log },
    );
  }

  /** The plugin serving now. */
  get current(): CandidateInfo {
    return this.#current.candidate.info;
  }

  /** Queues a revision; only the newest queued one is judged once the running swap (if any) ends. */
  offer(revision: SourceRevision): void {
    if (this.#stop.signal.aborted) return;
    this.#pending = revision;
    this.#working ??= this.#drainQueue().finally(() => (this.#working = undefined));
  }

  /** Resolves once no revision is waiting or being judged (tests, benchmarks). */
  async idle(): Promise<void> {
    while (this.#working) await this.#working;
  }

  status(): ProviderStatus {
    const info = this.#current.candidate.info;
    const { signature: _sig, ...rejected } = this.#lastRejected ?? { signature: undefined };
    return {
      name: this.name,
      providerName: info.providerName,
      version: info.version,
      sha256: info.sha256,
      abi: info.abi,
      capabilities: [...info.capabilities],
      serves: [...this.provider.serves],
      source: this.#options.source.description,
      origin: this.#current.origin,
      since: this.#current.since.toISOString(),
      instances: this.#current.candidate.stats(),
      swaps: { ...this.#counts },
      lastRejected: this.#lastRejected ? (rejected as RejectedCandidate) : null,
      lastShadow: this.#lastShadow ?? null,
    };
  }

  /** Stops watching, waits for a swap in progress, then drains and closes the plugin. */
  async stop(): Promise<void> {
    this.#stop.abort();
    this.#pending = undefined;
    await this.#options.source.stop();
    await this.idle();
    await this.provider.close();
  }

  async #drainQueue(): Promise<void> {
    for (let next = this.#pending; next !== undefined; next = this.#pending) {
      this.#pending = undefined;
      try {
        await this.#consider(next);
      } catch (err) {
        this.#log.error('hot swap failed unexpectedly; the current plugin keeps serving', {
          error: errorMessage(err),
        });
      }
    }
  }

  async #consider(shipped: SourceRevision): Promise<void> {
    const shippedSha256 = sha256Hex(shipped.bytes);
    const rejected = this.#lastRejected;
    if (rejected && rejected.shippedSha256 === shippedSha256 && rejected.signature === shipped.signature) {
      this.#log.debug('plugin module was already refused', { sha256: shippedSha256, origin: shipped.origin });
      return;
    }
    let unpacked: RevisionModule;
    try {
      unpacked = await unpackRevision(this.#options.config, shipped);
    } catch (err) {
      this.#reject(shipped, shippedSha256, shippedSha256, undefined, errorMessage(err));
      return;
    }
    const revision = unpacked.revision;
    const sha256 = unpacked.compressed ? sha256Hex(revision.bytes) : shippedSha256;
    const current = this.#current.candidate.info;
    if (sha256 === current.sha256) {
      this.#log.debug('plugin source changed but the module is the one serving', { origin: revision.origin });
      return;
    }
    this.#log.info('plugin candidate found; verifying', {
      sha256,
      origin: revision.origin,
      ...(unpacked.compressed ? { gzipBytes: unpacked.compressed.byteLength, bytes: revision.bytes.byteLength } : {}),
    });
    let candidate: LoadedCandidate | undefined;
    try {
      candidate = await judge(this.#options, unpacked, sha256, this.provider.serves);
      if (candidate.info.providerName !== current.providerName) {
        throw new RejectedError(
          `it describes itself as provider "${candidate.info.providerName}", but "${current.providerName}" is serving (provider IDs would change)`,
        );
      }
    } catch (err) {
      this.#reject(revision, sha256, shippedSha256, candidate?.info.version, errorMessage(err));
      await candidate?.close();
      return;
    }
    if (this.#options.config.shadow !== undefined) {
      await this.#shadow(candidate);
      if (this.#stop.signal.aborted) {
        await candidate.close();
        return;
      }
    }
    this.#apply(revision, candidate);
  }

  async #shadow(candidate: LoadedCandidate): Promise<void> {
    const policy = this.#options.config.shadow as NonNullable<ProviderConfig['shadow']>;
    const session = new ShadowSession({
      candidate: candidate.provider,
      policy,
      logger: this.#log.child({ shadow: candidate.info.version }),
      onCompared: (method, same) => this.#options.metrics.shadowCompared(this.name, method, same),
    });
    this.#log.info('shadow: candidate answers read-only calls beside the current plugin', {
      version: candidate.info.version,
      calls: policy.calls,
      seconds: policy.seconds,
    });
    this.provider.setShadow(session);
    try {
      await session.finished(this.#stop.signal);
    } finally {
      this.provider.setShadow(undefined);
    }
    this.#lastShadow = structuredClone(session.summary);
    this.#log.info('shadow: done', { compared: session.summary.compared, differences: session.summary.differences });
  }

  #apply(revision: SourceRevision, candidate: LoadedCandidate): void {
    const previous = this.#current.candidate.info;
    this.#current = { candidate, origin: revision.origin, since: new Date() };
    // From this statement on, new calls go to the candidate; the old plugin drains and closes in the background.
    void this.provider.swap({ provider: candidate.provider, close: () => candidate.close() });
    const seconds = Math.max(0, (Date.now() - revision.noticedAt) / 1000);
    this.#counts.applied++;
    this.#options.metrics.swapped(this.name, 'applied', seconds);
    this.#log.info('plugin swapped', {
      from: previous.version,
      to: candidate.info.version,
      sha256: candidate.info.sha256,
      previousSha256: previous.sha256,
      durationMs: Math.round(seconds * 1000),
      origin: revision.origin,
    });
    this.#event(
      revision.object,
      'PluginSwapped',
      `Provider ${this.name} now runs ${candidate.info.providerName} ${candidate.info.version} (sha256 ${short(candidate.info.sha256)}), was ${previous.version} (sha256 ${short(previous.sha256)})`,
    );
  }

  #reject(
    revision: SourceRevision,
    sha256: string,
    shippedSha256: string,
    version: string | undefined,
    reason: string,
  ): void {
    const seconds = Math.max(0, (Date.now() - revision.noticedAt) / 1000);
    const current = this.#current.candidate.info;
    this.#lastRejected = {
      sha256,
      shippedSha256,
      version,
      reason,
      time: new Date().toISOString(),
      origin: revision.origin,
      signature: revision.signature,
    };
    this.#counts.rejected++;
    this.#options.metrics.swapped(this.name, 'rejected', seconds);
    this.#log.warn('plugin candidate rejected', {
      sha256,
      version,
      reason,
      origin: revision.origin,
      serving: current.version,
    });
    const what = version === undefined ? '' : `, version ${version}`;
    this.#event(
      revision.object,
      'PluginRejected',
      `Refused plugin module (sha256 ${short(sha256)}${what}) for provider ${this.name}: ${clip(reason, 700)}; still serving ${current.version} (sha256 ${short(current.sha256)})`,
    );
  }

  #event(object: KubeObject | undefined, reason: EventReason, message: string): void {
    const events = this.#options.events;
    if (object !== undefined && events !== undefined) recordReason(events, object, reason, message);
  }
}

/** Digest pin, signature, then a full load with the capability check; rejects with the first reason found. */
async function judge(
  options: HotSwapperOptions,
  unpacked: RevisionModule,
  sha256: string,
  serves: ReadonlySet<Capability> | undefined,
): Promise<LoadedCandidate> {
  const config = options.config;
  const revision = unpacked.revision;
  if (config.sha256 !== undefined && config.sha256 !== sha256) {
    throw new RejectedError(`sha256 ${sha256} does not match the pinned ${config.sha256}`);
  }
  if (config.signature !== undefined) {
    const signature = config.signature.signature ?? revision.signature;
    if (signature === undefined) {
      const where = config.source.kind === 'configMap' ? `key "${signatureName(config.source.key)}"` : 'a .sig file';
      throw new RejectedError(`unsigned: a signature is required and none came with the module (${where})`);
    }
    try {
      verifyModuleSignature(unpacked, signature, config.signature.publicKey);
    } catch (err) {
      throw new RejectedError(`signature: ${errorMessage(err)}`);
    }
  }
  const candidate = await options.load(revision.bytes, config.name);
  const wanted = serves ?? new Set(config.capabilities ?? []);
  const missing = [...wanted].filter((c) => !candidate.info.capabilities.has(c));
  if (missing.length > 0) {
    await candidate.close();
    throw new RejectedError(
      `it does not declare ${missing.join(', ')}, which provider ${config.name} serves (it declares: ${[...candidate.info.capabilities].join(', ') || 'nothing'})`,
    );
  }
  return candidate;
}

function summary(info: CandidateInfo): Record<string, unknown> {
  return {
    providerName: info.providerName,
    version: info.version,
    abi: info.abi,
    sha256: info.sha256,
    capabilities: [...info.capabilities],
  };
}

function short(sha256: string): string {
  return sha256.slice(0, 12);
}

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
