// Loading a plugin, in the order the checks must happen: bytes and pinned digest; Wasm header, import policy and
// memory cap (before compiling); compile; describe on a first instance (ABI major, exports of every declared
// capability); initialize (a plugin error stops start-up with the plugin's message); then the rest of the pool.
import { type Logger, silentLogger } from '../../log/logger.ts';
import {
  ABI_MAJOR,
  ALWAYS_METHODS,
  CAPABILITIES,
  type Capability,
  type DescribeResponse,
  METHODS,
  type MethodName,
} from '../../abi/index.ts';
import { CredentialStore } from '../broker/credential-store.ts';
import { decodeAnswer } from '../sandbox/decode-answer.ts';
import { HostAllowList } from '../broker/allow-list.ts';
import { HttpBroker } from '../broker/http-broker.ts';
import { type CloudApiMetrics, cloudApiMetrics } from '../broker/cloud-api-metrics.ts';
import { type ExitCause, PluginInstance } from '../sandbox/plugin-instance.ts';
import { PluginWorkerGroup } from '../sandbox/plugin-worker.ts';
import { createPluginMetrics, type PluginMetrics } from './plugin-metrics.ts';
import { type PluginLimits, type PluginLoadOptions, resolveLimits } from '../config/options.ts';
import { InstanceSet } from '../sandbox/instance-set.ts';
import { type LoadedSource, loadPluginSource } from '../module/plugin-source.ts';
import { exportedFunctionNames, type PreparedModule, prepareModule } from '../module/prepare-module.ts';
import { workerResourceLimits } from '../sandbox/worker/worker-heap.ts';
import type { WorkerLimits } from '../sandbox/worker/worker-protocol.ts';
import { errorMessage } from '../../util/error-message.ts';
import { LoadedPlugin } from './loaded-plugin.ts';
import { delegatingLogger, pluginLogForwarder } from './plugin-log.ts';
import { loadBalancerNodeFieldsOf, type NodeField } from './node-fields.ts';

export class PluginLoadError extends Error {
  override name = 'PluginLoadError';
}

const encoder = new TextEncoder();

type Fail = (message: string, cause?: unknown) => PluginLoadError;

/** The module compiled under the caps, and the names of the functions it exports. */
interface CheckedModule {
  prepared: PreparedModule;
  exports: ReadonlySet<string>;
}

/** The broker every instance's HTTP goes through, and the credentials it attaches. */
interface Egress {
  broker: HttpBroker;
  credentials: CredentialStore;
  /** The cloud config ccm_initialize hands the plugin: without the secrets the host logs in with. */
  cloudConfig: string;
  close(): void;
}

/** What the plugin goes by in logs, metrics and ccm_initialize: its file's label until ccm_describe names it. */
interface PluginIdentity {
  providerName: string;
  logger: Logger;
  metrics: PluginMetrics;
}

export async function loadPlugin(options: PluginLoadOptions): Promise<LoadedPlugin> {
  const limits = resolveLimits(options.limits);
  const baseLogger = options.logger ?? silentLogger;
  const source = await loadPluginSource(options.source, options.sha256, limits.maxModuleBytes);
  const fail: Fail = (message, cause) =>
    new PluginLoadError(`cannot load plugin ${source.label}: ${message}`, { cause });
  const module = await checkModule(source, limits, fail);
  const identity: PluginIdentity = {
    providerName: source.label,
    logger: baseLogger.child({ plugin: source.label }),
    metrics: createPluginMetrics(undefined, source.label, source.label),
  };
  // Before the egress (credentials, logins) opens: a runtime that cannot host plugins fails here, leaving nothing open.
  const workers = pluginWorkers(limits, module.prepared);
  const cloudApi = cloudApiMetrics(options.registry, () => options.provider ?? identity.providerName);
  const egress = await openEgress(options, limits, baseLogger, identity, fail, cloudApi);
  const instances = instancePool(options, limits, workers, egress, identity);
  try {
    return await startPool({ options, limits, source, module, egress, identity, instances, workers, baseLogger, fail });
  } catch (err) {
    await instances.close();
    egress.close();
    if (err instanceof PluginLoadError) throw err;
    throw fail(errorMessage(err), err);
  }
}

/** Import policy, caps and compilation (prepare-module.ts), then the exports every plugin must have. */
async function checkModule(source: LoadedSource, limits: PluginLimits, fail: Fail): Promise<CheckedModule> {
  let prepared: PreparedModule;
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
  return { prepared, exports };
}

// Login entries (a Keystone password) log in now, before any instance starts: their catalogs are in the plugin's
// config and, with hostsFromCatalog, in its allow-list. A failed login fails the load, naming the credential.
async function openEgress(
  options: PluginLoadOptions,
  limits: PluginLimits,
  baseLogger: Logger,
  identity: PluginIdentity,
  fail: Fail,
  metrics: CloudApiMetrics,
): Promise<Egress> {
  const credentials = options.credentials
    ? await CredentialStore.open({
        ...options.credentials,
        logger: baseLogger.child({ component: 'credentials' }),
        onLogin: (credential, ok) => metrics.login(credential, ok),
        ...(options.tls ? { tls: options.tls } : {}),
      })
    : CredentialStore.empty();
  try {
    await credentials.startLogins();
  } catch (err) {
    credentials.close();
    throw fail(errorMessage(err), err);
  }
  const broker = new HttpBroker({
    allowList: new HostAllowList([...(options.allowedHosts ?? []), ...credentials.catalogHosts()]),
    credentials,
    maxResponseBytes: limits.maxHttpResponseBytes,
    defaultTimeoutMs: limits.httpTimeoutMs,
    maxTimeoutMs: limits.maxHttpTimeoutMs,
    maxRedirects: limits.maxRedirects,
    tls: options.tls,
    onPluginRequest: options.onPluginRequest,
    replica: options.replica,
    logger: delegatingLogger(() => identity.logger),
    metrics,
  });
  return {
    broker,
    credentials,
    cloudConfig: credentials.pluginCloudConfig(options.cloudConfig ?? ''),
    close: () => {
      broker.close();
      credentials.close();
    },
  };
}

function workerLimits(limits: PluginLimits, memoryCapBytes: number): WorkerLimits {
  return {
    kernelMemoryBytes: limits.kernelMemoryBytes,
    maxOutputBytes: limits.maxOutputBytes,
    maxHttpRequestBytes: limits.maxHttpRequestBytes,
    maxLogRecordsPerCall: limits.maxLogRecordsPerCall,
    maxLogRecordBytes: limits.maxLogRecordBytes,
    maxLogBytesPerCall: limits.maxLogBytesPerCall,
    memoryCapBytes,
  };
}

/** The worker threads of a plugin's instances: each holds up to limits.instancesPerWorker of them. */
function pluginWorkers(limits: PluginLimits, prepared: PreparedModule): PluginWorkerGroup {
  const memoryCapBytes = prepared.memory.effectiveMaxPages * 65_536;
  const perWorker = limits.instancesPerWorker;
  return new PluginWorkerGroup(
    {
      module: prepared.module,
      limits: workerLimits(limits, memoryCapBytes),
    },
    // Every instance's linear memory counts against the worker's external-memory limit (worker-heap.ts).
    workerResourceLimits(limits.workerHeapMb, memoryCapBytes * perWorker),
    perWorker,
  );
}

/** Starts one instance in the plugin's workers; it serves nothing until initialized. */
function spawnInstance(
  limits: PluginLimits,
  workers: PluginWorkerGroup,
  egress: Egress,
  identity: PluginIdentity,
  onExit: (instance: PluginInstance, cause: ExitCause, detail: string) => void,
): Promise<PluginInstance> {
  return PluginInstance.start({
    workers,
    maxInputBytes: limits.maxInputBytes,
    config: egress.credentials.pluginConfig(),
    startTimeoutMs: limits.startTimeoutMs,
    http: egress.broker,
    onLog: pluginLogForwarder(() => identity.logger),
    onExit,
    onStuck: (instance, detail) =>
      identity.logger.error('plugin worker did not stop; its thread keeps running until V8 can stop it', {
        instance: instance.id,
        detail,
      }),
  });
}

/** ccm_initialize on one instance. Every instance runs it before serving: plugin state set up there is per instance. */
async function initializeInstance(
  instance: PluginInstance,
  options: PluginLoadOptions,
  egress: Egress,
  limits: PluginLimits,
  providerName: string,
): Promise<void> {
  const request = encoder.encode(
    JSON.stringify({ cloudConfig: egress.cloudConfig, clusterName: options.clusterName ?? 'kubernetes' }),
  );
  const output = await instance.call(METHODS.initialize.exportName, request, limits.startTimeoutMs);
  decodeAnswer('initialize', output, { provider: providerName, method: 'initialize' });
}

/** The pool: each instance it starts (after the first, adopted by startPool) is spawned, then initialized. */
function instancePool(
  options: PluginLoadOptions,
  limits: PluginLimits,
  workers: PluginWorkerGroup,
  egress: Egress,
  identity: PluginIdentity,
): InstanceSet<PluginInstance> {
  return new InstanceSet<PluginInstance>({
    size: options.pool?.size ?? 2,
    minInstances: options.pool?.minInstances,
    idleTimeoutMs: options.pool?.idleTimeoutMs,
    logger: delegatingLogger(() => identity.logger),
    onRestart: (cause) => identity.metrics.instanceRestarted(cause),
    start: async (onExit) => {
      const instance = await spawnInstance(limits, workers, egress, identity, onExit);
      try {
        await initializeInstance(instance, options, egress, limits, identity.providerName);
      } catch (err) {
        await instance.terminate('crash', 'initialize failed');
        throw err;
      }
      return instance;
    },
  });
}

interface StartContext {
  options: PluginLoadOptions;
  limits: PluginLimits;
  source: LoadedSource;
  module: CheckedModule;
  egress: Egress;
  identity: PluginIdentity;
  instances: InstanceSet<PluginInstance>;
  workers: PluginWorkerGroup;
  baseLogger: Logger;
  fail: Fail;
}

/** A first instance describes the plugin and is initialized; then the pool fills and the plugin serves. */
async function startPool(ctx: StartContext): Promise<LoadedPlugin> {
  const { limits, source, egress, identity, instances } = ctx;
  const first = await spawnInstance(limits, ctx.workers, egress, identity, instances.onInstanceExit);
  instances.adopt(first);
  const described = await instances.use((i) => describe(i, limits), limits.startTimeoutMs);
  identity.providerName = described.providerName;
  const capabilities = checkDescription(described, ctx.module.exports, ctx.fail);
  const loadBalancerNodeFields = nodeFieldsOf(described, ctx.fail);
  identity.logger = ctx.baseLogger.child({ plugin: described.providerName });
  identity.metrics = createPluginMetrics(
    ctx.options.registry,
    ctx.options.provider ?? described.providerName,
    described.providerName,
  );
  try {
    await instances.use(
      (i) => initializeInstance(i, ctx.options, egress, limits, described.providerName),
      limits.startTimeoutMs,
    );
  } catch (err) {
    throw ctx.fail(`ccm_initialize failed: ${errorMessage(err)}`, err);
  }
  await instances.fill();
  if (egress.credentials.exposesSecrets) egress.credentials.onChange(() => instances.recycle());
  identity.logger.info('plugin loaded', {
    version: described.version,
    abi: described.abi,
    capabilities: [...capabilities],
    // What load balancer node lists carry: every Node field, or the ones the plugin named.
    loadBalancerNodeFields: loadBalancerNodeFields ?? 'all',
    sha256: source.sha256,
    memoryMaxMiB: (ctx.module.prepared.memory.effectiveMaxPages * 65_536) / 1048576,
  });
  return new LoadedPlugin({
    description: described,
    sha256: source.sha256,
    capabilities,
    instances,
    limits,
    exports: ctx.module.exports,
    metrics: identity.metrics,
    logger: identity.logger,
    hostGet: (url, timeoutMs) => egress.broker.hostGet(url, timeoutMs),
    onClose: egress.close,
  });
}

async function describe(instance: PluginInstance, limits: PluginLimits): Promise<DescribeResponse> {
  const output = await instance.call(METHODS.describe.exportName, encoder.encode('{}'), limits.startTimeoutMs);
  return decodeAnswer('describe', output, { method: 'describe' });
}

/** The Node fields the plugin's load balancer node lists carry; a field no Node has refuses the plugin. */
function nodeFieldsOf(description: DescribeResponse, fail: Fail): readonly NodeField[] | undefined {
  try {
    return loadBalancerNodeFieldsOf(description);
  } catch (err) {
    throw fail(`ccm_describe: ${errorMessage(err)}`);
  }
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
