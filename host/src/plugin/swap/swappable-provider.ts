// The Provider the controllers hold for the life of the process. Behind it, the plugin serving calls can be replaced
// at any moment: swap() redirects every call that starts afterwards to the new plugin in one synchronous step,
// calls already running finish on the plugin they started on, and that plugin is closed only once its last call
// has returned (or its drain deadline passed). Controllers never see a swap: the capability objects they captured
// at start-up dispatch to whichever plugin is current when each call begins.
import type { Capability } from '../../abi/index.ts';
import {
  buildCapabilities,
  CapabilitySetProvider,
  InternalError,
  type Capabilities,
  prepareNodes,
  preparingNodeLists,
  type Provider,
} from '../../cloudprovider/index.ts';
import { type Logger, silentLogger } from '../../log/logger.ts';
import { errorMessage } from '../../util/error-message.ts';
import { FORWARDERS, type Forwarding, IMPLEMENTATION_OF, type ShadowMethod } from './forwarders.generated.ts';
import type { Settled } from './settled.ts';
import type { ShadowSession } from './shadow.ts';

/** A provider plus what releases it. */
export interface ProviderHandle {
  provider: Provider;
  /** Called once, when no call is in flight on it any more. */
  close(): Promise<void>;
}

interface Slot {
  handle: ProviderHandle;
  inflight: number;
  /** Set while draining: called when inflight reaches 0. */
  onIdle: (() => void) | undefined;
}

export interface SwappableProviderOptions {
  /** What the controllers may use; swap candidates must declare each (checked by the caller before swap()). */
  serves: ReadonlySet<Capability>;
  /** Longest wait for a retired plugin's calls before it is closed anyway (default 60 s). */
  drainTimeoutMs?: number;
  logger?: Logger;
}

// Every method is written out in forwarders.generated.ts from the ABI definition; this class says what forwarding
// means: run on the slot current when the call starts, and mirror shadowed methods onto a candidate.
export class SwappableProvider extends CapabilitySetProvider {
  readonly serves: ReadonlySet<Capability>;
  #slot: Slot;
  #shadow: ShadowSession | undefined;
  #closing: Promise<void> | undefined;
  readonly #drainTimeoutMs: number;
  readonly #log: Logger;
  readonly #retiring = new Set<Promise<void>>();

  constructor(initial: ProviderHandle, options: SwappableProviderOptions) {
    const forwarding: Forwarding = {
      run: (capability, call) => this.#run((p) => call(implementation(p, capability))),
      runShadowed: (capability, method, object, call) => this.#runShadowed(capability, method, object, call),
      shadowing: () => this.#shadow !== undefined && !this.#shadow.isFinished,
    };
    const capabilities = buildCapabilities(options.serves, FORWARDERS, forwarding);
    // A hint, not a call: it goes to the provider current now, and a swapped-in one cuts its list at its first call.
    super(
      preparingNodeLists(capabilities, (nodes) => {
        const current = this.#slot.handle.provider.loadBalancer();
        if (current !== undefined) prepareNodes(current, nodes);
      }),
    );
    this.serves = options.serves;
    this.#slot = { handle: initial, inflight: 0, onIdle: undefined };
    this.#drainTimeoutMs = options.drainTimeoutMs ?? 60_000;
    this.#log = options.logger ?? silentLogger;
  }

  /** The provider serving new calls. */
  get current(): Provider {
    return this.#slot.handle.provider;
  }

  /** Calls running on the current provider (for tests and /debug). */
  get inflight(): number {
    return this.#slot.inflight;
  }

  /**
   * Makes `next` serve every call from now on. Resolves once the previous provider has drained and been closed;
   * the switch itself has happened before this returns its promise.
   */
  swap(next: ProviderHandle): Promise<void> {
    if (this.#closing) throw new Error('the provider is closed');
    const old = this.#slot;
    this.#slot = { handle: next, inflight: 0, onIdle: undefined };
    const retired = this.#retire(old);
    this.#retiring.add(retired);
    void retired.finally(() => this.#retiring.delete(retired));
    return retired;
  }

  /** While set, read-only answers are repeated on the session's candidate and compared (shadow mode). */
  setShadow(session: ShadowSession | undefined): void {
    this.#shadow = session;
  }

  /** Drains and closes the current provider and any still retiring. */
  close(): Promise<void> {
    this.#shadow = undefined;
    this.#closing ??= Promise.all([this.#retire(this.#slot), ...this.#retiring]).then(() => undefined);
    return this.#closing;
  }

  providerName(): string {
    return this.current.providerName();
  }

  hasClusterID(): boolean {
    return this.current.hasClusterID();
  }

  async #run<T>(fn: (p: Provider) => Promise<T>): Promise<T> {
    // The slot is read once, synchronously: a swap after this line does not move this call.
    const slot = this.#slot;
    slot.inflight++;
    try {
      return await fn(slot.handle.provider);
    } finally {
      slot.inflight--;
      if (slot.inflight === 0) slot.onIdle?.();
    }
  }

  // The controllers get the current plugin's answer; the candidate's is compared once the current one is known.
  async #runShadowed<C extends Capability, T>(
    capability: C,
    method: ShadowMethod,
    object: string,
    call: (impl: Capabilities[C]) => Promise<T>,
  ): Promise<T> {
    const onProvider = (p: Provider): Promise<T> => call(implementation(p, capability));
    const result = await settle(() => this.#run(onProvider));
    this.#shadow?.mirror(method, object, result, onProvider);
    return unwrap(result);
  }

  async #retire(slot: Slot): Promise<void> {
    if (slot.inflight > 0) {
      let timer: NodeJS.Timeout | undefined;
      const idle = new Promise<boolean>((resolve) => {
        slot.onIdle = () => resolve(true);
        timer = setTimeout(() => resolve(false), this.#drainTimeoutMs);
      });
      const drained = await idle;
      clearTimeout(timer);
      if (!drained) {
        this.#log.warn('closing a retired plugin with calls still running', {
          inflight: slot.inflight,
          drainTimeoutMs: this.#drainTimeoutMs,
        });
      }
    }
    try {
      await slot.handle.close();
    } catch (err) {
      this.#log.warn('closing a retired plugin failed', { error: errorMessage(err) });
    }
  }
}

async function settle<T>(fn: () => Promise<T>): Promise<Settled<T>> {
  try {
    return { ok: true, value: await fn() };
  } catch (error) {
    return { ok: false, error };
  }
}

function unwrap<T>(result: Settled<T>): T {
  if (result.ok) return result.value;
  throw result.error;
}

function implementation<C extends Capability>(provider: Provider, capability: C): Capabilities[C] {
  const impl = IMPLEMENTATION_OF[capability](provider);
  // Candidates are checked to declare every served capability before they are swapped in; this is the backstop.
  if (impl === undefined) throw new InternalError(`the current plugin does not implement ${capability}`);
  return impl;
}
