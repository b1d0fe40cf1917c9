// Loading a plugin, in the order the checks must happen: bytes and pinned digest; Wasm header, import policy and
// memory cap (before compiling); compile; describe on a first instance (ABI major, exports of every declared
// capability); initialize (a plugin error stops start-up with the plugin's message); then the rest of the pool.
import { silentLogger } from '../../log/logger.ts';
import {
  ABI_MAJOR,
  ALWAYS_METHODS,
  CAPABILITIES,
  type Capability,
  type DescribeResponse,
  METHODS,
  type MethodName,
} from '../../abi/index.ts';
import { errorMessage } from '../../util/error-message.ts';
import { CredentialStore } from '../credentials/credential-store.ts';
import { decodeAnswer } from '../envelope/decode-answer.ts';
import { HostAllowList } from '../http/allow-list.ts';
import { HttpBroker } from '../http/http-broker.ts';
import { type ExitCause, PluginInstance } from '../instance/plugin-instance.ts';
import { createPluginMetrics, type PluginMetrics } from '../metrics/plugin-metrics.ts';
import { type PluginLimits, type PluginLoadOptions, resolveLimits } from '../options.ts';
import { InstanceSet } from '../instance/instance-set.ts';
import { loadPluginSource } from '../module/plugin-source.ts';
import { exportedFunctionNames, prepareModule } from '../module/prepare-module.ts';
import { workerResourceLimits } from '../worker/worker-heap.ts';
import { LoadedPlugin } from './loaded-plugin.ts';
import { delegatingLogger, pluginLogForwarder } from './plugin-log.ts';

export class PluginLoadError extends Error {
  override name = 'PluginLoadError';
}

const encoder = new TextEncoder();

export async function loadPlugin(options: PluginLoadOptions): Promise<LoadedPlugin> {
  const limits = resolveLimits(options.limits);
  const baseLogger = options.logger ?? silentLogger;
  const source = await loadPluginSource(options.source, options.sha256, limits.maxModuleBytes);
  let logger = baseLogger.child({ plugin: source.label });
  const fail = (message: string, cause?: unknown): PluginLoadError =>
    new PluginLoadError(`cannot load plugin ${source.label}: ${message}`, { cause });

  let prepared;
  try {
    prepared = await prepareModule(source.bytes, {
      memoryBytes: limits.memoryBytes,
      tableEntries: limits.maxTableEntries,
    });
  } catch (err) {
    throw fail(errorMessage(err), err);
  }
  const exports = exportedFunctionNames(prepared.exports);
  const missingAlways = ALWAYS_METHODS.map((m) => METHODS[m].exportName).filter((e) => !exports.has(e));
  if (missingAlways.length > 0) throw fail(`it does not export ${missingAlways.join(', ')} (every plugin must)`);

  const credentials = options.credentials
    ? await CredentialStore.open({ ...options.credentials, logger: baseLogger.child({ component: 'credentials' }) })
    : CredentialStore.empty();
  const broker = new HttpBroker({
    allowList: new HostAllowList(options.allowedHosts ?? []),
    credentials,
    maxResponseBytes: limits.maxHttpResponseBytes,
    defaultTimeoutMs: limits.httpTimeoutMs,
    maxTimeoutMs: limits.maxHttpTimeoutMs,
    maxRedirects: limits.maxRedirects,
    tls: options.tls,
    onPluginRequest: options.onPluginRequest,
    replica: options.replica,
  });
  let metrics: PluginMetrics = createPluginMetrics(undefined, source.label);
  const initializeRequest = encoder.encode(
    JSON.stringify({ cloudConfig: options.cloudConfig ?? '', clusterName: options.clusterName ?? 'kubernetes' }),
  );

  const spawn = (
    onExit: (instance: PluginInstance, cause: ExitCause, detail: string) => void,
  ): Promise<PluginInstance> =>
    PluginInstance.start({
      module: prepared.module,
      limits: {
        kernelMemoryBytes: limits.kernelMemoryBytes,
        maxOutputBytes: limits.maxOutputBytes,
        maxHttpRequestBytes: limits.maxHttpRequestBytes,
        maxLogRecordsPerCall: limits.maxLogRecordsPerCall,
        maxLogRecordBytes: limits.maxLogRecordBytes,
        maxLogBytesPerCall: limits.maxLogBytesPerCall,
        memoryCapBytes: prepared.memory.effectiveMaxPages * 65_536,
      },
      maxInputBytes: limits.maxInputBytes,
      config: credentials.exposedConfig(),
      resourceLimits: workerResourceLimits(limits.workerHeapMb, prepared.memory.effectiveMaxPages * 65_536),
      startTimeoutMs: limits.startTimeoutMs,
      http: broker,
      onLog: pluginLogForwarder(() => logger),
      onExit,
      onStuck: (instance, detail) =>
        logger.error('plugin worker did not stop; its thread keeps running until V8 can stop it', {
          instance: instance.id,
          detail,
        }),
    });

  let description: DescribeResponse | undefined;
  // Every instance runs ccm_initialize before serving: plugin state set up there is per instance.
  const initialize = async (instance: PluginInstance, providerName: string): Promise<void> => {
    const output = await instance.call(METHODS.initialize.exportName, initializeRequest, limits.startTimeoutMs);
    decodeAnswer('initialize', output, { provider: providerName, method: 'initialize' });
  };

  const instances = new InstanceSet<PluginInstance>({
    size: options.pool?.size ?? 2,
    minInstances: options.pool?.minInstances,
    idleTimeoutMs: options.pool?.idleTimeoutMs,
    logger: delegatingLogger(() => logger),
    onRestart: (cause) => metrics.instanceRestarted(cause),
    start: async (onExit) => {
      const instance = await spawn(onExit);
      try {
        await initialize(instance, description?.providerName ?? source.label);
      } catch (err) {
        await instance.terminate('crash', 'initialize failed');
        throw err;
      }
      return instance;
    },
  });
  const cleanUp = (): void => {
    broker.close();
    credentials.close();
  };

  try {
    const first = await spawn(instances.onInstanceExit);
    instances.adopt(first);
    const described = await instances.use((i) => describe(i, limits), limits.startTimeoutMs);
    description = described;
    const capabilities = checkDescription(described, exports, fail);
    logger = baseLogger.child({ plugin: described.providerName });
    metrics = createPluginMetrics(options.registry, described.providerName);
    try {
      await instances.use((i) => initialize(i, described.providerName), limits.startTimeoutMs);
    } catch (err) {
      throw fail(`ccm_initialize failed: ${errorMessage(err)}`, err);
    }
    await instances.fill();
    if (credentials.exposesSecrets) credentials.onChange(() => instances.recycle());
    logger.info('plugin loaded', {
      version: described.version,
      abi: described.abi,
      capabilities: [...capabilities],
      sha256: source.sha256,
      memoryMaxMiB: (prepared.memory.effectiveMaxPages * 65_536) / 1048576,
    });
    return new LoadedPlugin({
      description: described,
      sha256: source.sha256,
      capabilities,
      instances,
      limits,
      metrics,
      logger,
      hostGet: (url, timeoutMs) => broker.hostGet(url, timeoutMs),
      onClose: cleanUp,
    });
  } catch (err) {
    await instances.close();
    cleanUp();
    if (err instanceof PluginLoadError) throw err;
    throw fail(errorMessage(err), err);
  }
}

async function describe(instance: PluginInstance, limits: PluginLimits): Promise<DescribeResponse> {
  const output = await instance.call(METHODS.describe.exportName, encoder.encode('{}'), limits.startTimeoutMs);
  return decodeAnswer('describe', output, { method: 'describe' });
}

/** Checks the ABI major and that every declared capability's exports exist; returns the known capabilities. */
function checkDescription(
  description: DescribeResponse,
  exports: ReadonlySet<string>,
  fail: (message: string) => PluginLoadError,
): Set<Capability> {
  const match = /^(\d+)\.(\d+)$/.exec(description.abi);
  if (!match) throw fail(`ccm_describe answered abi '${description.abi}', expected '${ABI_MAJOR}.<minor>'`);
  if (Number(match[1]) !== ABI_MAJOR) {
    throw fail(`it speaks provider ABI ${description.abi}; this host speaks ABI ${ABI_MAJOR}.x only`);
  }
  if (description.providerName === '') throw fail('ccm_describe answered an empty providerName');
  const capabilities = new Set<Capability>();
  const missing: string[] = [];
  for (const name of description.capabilities) {
    // A newer minor may add capabilities this host does not know: ignored, like unknown fields.
    if (!Object.hasOwn(CAPABILITIES, name)) continue;
    const capability = name as Capability;
    const methods: readonly MethodName[] = CAPABILITIES[capability];
    const absent = methods.map((m) => METHODS[m].exportName).filter((e) => !exports.has(e));
    if (absent.length > 0) missing.push(`${capability} needs ${absent.join(', ')}`);
    capabilities.add(capability);
  }
  if (missing.length > 0) throw fail(`it declares capabilities whose exports are missing: ${missing.join('; ')}`);
  return capabilities;
}
