// A loaded plugin: typed calls over its instance set. Each call encodes the request, runs the export on a free
// instance under the method's deadline, validates the answer against the ABI and turns failures into the named
// provider errors, counting everything in the metrics.
import {
  InternalError,
  NotImplementedError,
  type ProviderError,
  type ProviderErrorContext,
  TimeoutError,
  isProviderError,
} from '../../cloudprovider/index.ts';
import type { Logger, VerboseLogger } from '../../log/logger.ts';
import {
  type Capability,
  type DescribeResponse,
  type KeptList,
  METHODS,
  type Node,
  type MethodName,
  type Requests,
  type Responses,
  jsonPayload,
} from '../../abi/index.ts';
import { decodeAnswer } from '../sandbox/decode-answer.ts';
import type { HostGetAnswer } from '../broker/http-broker.ts';
import { InstanceCallError } from '../sandbox/instance-errors.ts';
import type { PluginInstance } from '../sandbox/plugin-instance.ts';
import type { PluginMetrics } from './plugin-metrics.ts';
import type { PluginLimits } from '../config/options.ts';
import { type InstanceSet, NoFreeInstanceError } from '../sandbox/instance-set.ts';
import { errorMessage } from '../../util/error-message.ts';
import { isNodeListMethod, type NodeListRequest, NodeListRefs, speaksKeptLists } from './node-list-refs.ts';
import { abiMinorOf, speaksSystemUUID, withoutSystemUUID } from './later-fields.ts';
import { loadBalancerNodeFieldsOf, NodeListProjection } from './node-fields.ts';

export interface LoadedPluginParts {
  description: DescribeResponse;
  /** SHA-256 of the module as loaded (before the memory cap rewrote it). */
  sha256: string;
  capabilities: ReadonlySet<Capability>;
  instances: InstanceSet<PluginInstance>;
  limits: PluginLimits;
  /** The names of the functions the module exports. */
  exports: ReadonlySet<string>;
  metrics: PluginMetrics;
  logger: Logger;
  /** A GET the host makes under the plugin's allow-list and credentials (HttpBroker.hostGet). */
  hostGet: (url: string, timeoutMs: number) => Promise<HostGetAnswer>;
  /** Releases what the plugin holds besides its pool (HTTP agents, credential polling). */
  onClose: () => void;
}

export class LoadedPlugin {
  readonly description: DescribeResponse;
  readonly capabilities: ReadonlySet<Capability>;
  readonly sha256: string;
  readonly #parts: LoadedPluginParts;
  /** Node lists kept by instances (ABI 1.2); undefined for plugins of an older SDK, which always get the list. */
  readonly #nodeLists: NodeListRefs | undefined;
  /** Cuts load balancer node lists to the fields the plugin reads (ABI 1.7); undefined: they go whole. */
  readonly #projection: NodeListProjection | undefined;
  /** Whether requests may carry Node.systemUUID (ABI 1.4). */
  readonly #systemUUID: boolean;
  /** Each call's method, duration and outcome at -v=4. */
  readonly #calls: VerboseLogger;

  constructor(parts: LoadedPluginParts) {
    this.#parts = parts;
    this.#calls = parts.logger.v(4);
    this.description = parts.description;
    this.capabilities = parts.capabilities;
    this.sha256 = parts.sha256;
    this.#nodeLists = speaksKeptLists(parts.description.abi)
      ? new NodeListRefs(() => {
          parts.logger.warn('plugin instance did not hold its node list; sent it again');
          parts.metrics.keptListResent();
        })
      : undefined;
    this.#systemUUID = speaksSystemUUID(parts.description.abi);
    // Checked at load (load-plugin.ts), which refuses a description this would throw for.
    const fields = loadBalancerNodeFieldsOf(parts.description);
    this.#projection = fields === undefined ? undefined : new NodeListProjection(fields);
  }

  /**
   * Whether the plugin has `method`: every method of 1.0 is checked at load for the capabilities it declares; an
   * optional one of a later minor needs the export and a plugin that answered that minor or a later one.
   */
  exports(method: MethodName): boolean {
    const info = METHODS[method];
    return this.#parts.exports.has(info.exportName) && abiMinorOf(this.description.abi) >= info.since;
  }

  /** The limits the plugin runs under (defaults filled in). */
  get limits(): Readonly<PluginLimits> {
    return this.#parts.limits;
  }

  get providerName(): string {
    return this.description.providerName;
  }

  get poolStats(): InstanceSet<PluginInstance>['stats'] {
    return this.#parts.instances.stats;
  }

  /** A GET the host makes itself with the plugin's allow-list and credentials; the plugin never sees it. */
  hostGet(url: string, timeoutMs: number): Promise<HostGetAnswer> {
    return this.#parts.hostGet(url, timeoutMs);
  }

  /** Calls a method; rejects with a ProviderError (TimeoutError, InternalError, or what the plugin answered). */
  async call<M extends MethodName>(method: M, given: Requests[M]): Promise<Responses[M]> {
    const context: ProviderErrorContext = { provider: this.providerName, method };
    const started = performance.now();
    try {
      const request = this.requestFor(method, given);
      const exportName = METHODS[method].exportName;
      const timeoutMs = this.timeoutFor(method);
      const nodeLists = this.#nodeLists;
      // jsonPayload: JSON text, encoded straight into the channel (no byte copy here); or bytes, when a part
      // serialized once (the node list of load balancer calls) was spliced in instead of redone.
      const output = await this.#run(
        // Whether an instance gets the node list or only its reference depends on the instance the pool picks.
        nodeLists !== undefined && isNodeListMethod(method)
          ? (instance) => nodeLists.call(instance, exportName, request as NodeListRequest, timeoutMs, jsonPayload)
          : (instance) => instance.call(exportName, jsonPayload(request), timeoutMs),
        timeoutMs,
        context,
      );
      const response = decodeAnswer(method, output, context);
      this.#parts.metrics.observeCall(method, (performance.now() - started) / 1000);
      if (this.#calls.enabled) this.#logCall(method, started, 'ok');
      return response;
    } catch (err) {
      const failure = isProviderError(err) ? err : new InternalError(errorMessage(err), context);
      this.#parts.metrics.observeCall(method, (performance.now() - started) / 1000, failure.code);
      if (this.#calls.enabled) this.#logCall(method, started, failure.code);
      throw failure;
    }
  }

  /**
   * `given` as this plugin is sent it: without the fields of a later minor than it answered (Node.systemUUID), and
   * for the load balancer methods of a plugin that named its Node fields, with the other fields of the node list
   * empty. The conformance kit sends its requests through this too, so a plugin is tested with what the CCM sends.
   */
  requestFor<M extends MethodName>(method: M, given: Requests[M]): Requests[M] {
    const request = this.#systemUUID ? given : withoutSystemUUID<M>(given);
    const projection = this.#projection;
    if (projection === undefined || !isNodeListMethod(method)) return request;
    const withList = request as Requests[M] & NodeListRequest;
    return { ...withList, nodes: projection.project(withList.nodes) };
  }

  /**
   * Cuts `nodes` to the plugin's fields now (and makes the cut's JSON), so that the first load balancer call to carry
   * them finds it done (NodeListPreparer). A plugin that reads every field takes the list as it is: nothing to do.
   */
  prepareNodes(nodes: KeptList<Node>): void {
    this.#projection?.prepare(nodes);
  }

  // The outcome is the error's code, never its message: a plugin's message may quote what its cloud answered.
  #logCall(method: MethodName, started: number, outcome: string): void {
    const duration = `${(performance.now() - started).toFixed(3)}ms`;
    this.#calls.info('plugin call', { method, duration, outcome });
  }

  /** Runs an export with raw input and returns its raw output (benchmarks and diagnostics; no ABI checks). */
  async callExport(
    exportName: string,
    input: Uint8Array,
    timeoutMs = this.#parts.limits.callTimeoutMs,
  ): Promise<Uint8Array> {
    return this.#run((instance) => instance.call(exportName, input, timeoutMs), timeoutMs, {
      provider: this.providerName,
      method: exportName,
    });
  }

  timeoutFor(method: MethodName): number {
    return this.#parts.limits.methodTimeoutsMs[method] ?? this.#parts.limits.callTimeoutMs;
  }

  async close(): Promise<void> {
    await this.#parts.instances.close();
    this.#parts.onClose();
  }

  async #run(
    exec: (instance: PluginInstance) => Promise<Uint8Array>,
    timeoutMs: number,
    context: ProviderErrorContext,
  ): Promise<Uint8Array> {
    const queueTimeoutMs = this.#parts.limits.queueTimeoutMs ?? timeoutMs;
    try {
      return await this.#parts.instances.use(exec, queueTimeoutMs);
    } catch (err) {
      const failure = toProviderError(err, context);
      if (err instanceof InstanceCallError && err.instanceLost) {
        this.#parts.logger.warn('plugin call lost its instance', {
          method: context.method,
          kind: err.kind,
          error: err.message,
        });
      }
      throw failure;
    }
  }
}

function toProviderError(err: unknown, context: ProviderErrorContext): ProviderError {
  if (err instanceof InstanceCallError) {
    if (err.kind === 'timeout') return new TimeoutError(err.message, context);
    if (err.kind === 'noSuchExport') return new NotImplementedError(err.message, context);
    return new InternalError(err.message, context);
  }
  if (err instanceof NoFreeInstanceError) return new TimeoutError(err.message, context);
  if (isProviderError(err)) return err;
  return new InternalError(errorMessage(err), context);
}
