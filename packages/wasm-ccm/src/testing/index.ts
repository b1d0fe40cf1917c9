// wasm-ccm/testing: a host for a provider's unit tests. It loads a built module with the CCM's own plugin runtime
// (worker-thread sandbox, import policy, memory cap, describe and export checks, ccm_initialize, brokered HTTP to an
// allow-list), calls any method with a typed request, and checks every answer against the ABI with the host's
// generated validators: an answer the CCM would refuse fails the test instead of passing it.
import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { describeOutcome, type Outcome, Probe } from '../../../../host/src/conformance/index.ts';
import type { Logger } from '../../../../host/src/log/logger.ts';
import type { DescribeResponse, MethodName, Requests, Responses } from '../../../../host/src/abi/index.ts';
import { loadPlugin } from '../../../../host/src/plugin/index.ts';

export { testNode, testPort, testService } from '../../../../host/src/conformance/index.ts';
export type { Outcome } from '../../../../host/src/conformance/index.ts';
export type * from '../../../../host/src/abi/index.ts';

export interface TestPluginOptions {
  /** The --cloud-config text ccm_initialize gets. Default ''. */
  cloudConfig?: string;
  /** The --cluster-name. Default 'kubernetes'. */
  clusterName?: string;
  /** Hosts the module may reach (`host` or `host:port`), e.g. a fake API on 127.0.0.1:<port>. Default none. */
  allowedHosts?: string[];
  /** A credentials file in the host's format, attached by the broker to matching requests. */
  credentialsFile?: string;
  /** Deadline of each call. Default 10 s, as the CCM's. */
  callTimeoutMs?: number;
  /** Linear memory cap. Default 256 MiB, as the CCM's. */
  memoryLimitMB?: number;
  /** Cap of each HTTP answer's body. Default 8 MiB, as the CCM's. */
  maxHttpResponseBytes?: number;
  /** Receives the runtime's and the plugin's log records (default: dropped). */
  logger?: Logger;
}

/** The plugin answered an error envelope; `code` is the ABI's error code (InstanceNotFound, Retry, ...). */
export class PluginAnswerError extends Error {
  override name = 'PluginAnswerError';
  readonly method: MethodName;
  readonly code: string;
  readonly detail: string;
  constructor(method: MethodName, code: string, detail: string) {
    super(`${method} answered ${code}: ${detail}`);
    this.method = method;
    this.code = code;
    this.detail = detail;
  }
}

/** The plugin's answer breaks the ABI (the CCM would turn it into Internal). */
export class AbiViolationError extends Error {
  override name = 'AbiViolationError';
  readonly code = 'ABI_VIOLATION';
  readonly method: MethodName;
  readonly problem: string;
  constructor(method: MethodName, problem: string) {
    super(`${method}: the answer breaks the ABI: ${problem}`);
    this.method = method;
    this.problem = problem;
  }
}

export interface TestPlugin {
  /** What ccm_describe answered. */
  readonly description: DescribeResponse;
  /** The answer, an error, or an ABI violation, as a value: for tests of error paths. */
  answer<M extends MethodName>(method: M, request: Requests[M]): Promise<Outcome<M>>;
  /** The answer; rejects with PluginAnswerError for an error envelope, AbiViolationError for an invalid answer. */
  call<M extends MethodName>(method: M, request: Requests[M]): Promise<Responses[M]>;
  /** Every answer so far that broke the ABI, as "<method>: <problem>". */
  readonly violations: readonly string[];
  close(): Promise<void>;
}

/** Loads a built module (a path or its bytes); rejects when the CCM would refuse it, or ccm_initialize fails. */
export async function loadTestPlugin(wasm: string | Uint8Array, options: TestPluginOptions = {}): Promise<TestPlugin> {
  const bytes = typeof wasm === 'string' ? new Uint8Array(await readFile(wasm)) : wasm;
  const plugin = await loadPlugin({
    source: { bytes, name: typeof wasm === 'string' ? basename(wasm) : 'module.wasm' },
    cloudConfig: options.cloudConfig ?? '',
    clusterName: options.clusterName ?? 'kubernetes',
    allowedHosts: options.allowedHosts ?? [],
    credentials: options.credentialsFile ? { file: options.credentialsFile, reloadIntervalMs: 0 } : undefined,
    pool: { size: 1 },
    limits: {
      ...(options.callTimeoutMs ? { callTimeoutMs: options.callTimeoutMs } : {}),
      ...(options.memoryLimitMB ? { memoryBytes: options.memoryLimitMB * 1024 * 1024 } : {}),
      ...(options.maxHttpResponseBytes ? { maxHttpResponseBytes: options.maxHttpResponseBytes } : {}),
    },
    logger: options.logger,
  });
  const probe = new Probe(plugin);
  return {
    description: plugin.description,
    answer: (method, request) => probe.call(method, request),
    async call<M extends MethodName>(method: M, request: Requests[M]): Promise<Responses[M]> {
      const outcome = await probe.call(method, request);
      if (outcome.kind === 'ok') return outcome.value;
      if (outcome.kind === 'error') throw new PluginAnswerError(method, outcome.error.code, outcome.error.message);
      throw new AbiViolationError(method, describeOutcome(outcome));
    },
    violations: probe.violations,
    close: () => plugin.close(),
  };
}
