// The conformance kit: loads a provider plugin the way the host does (import policy, memory cap, describe, export
// check, initialize, brokered HTTP and credentials) and runs it through the upstream provider contract against the
// vendor's cloud, check by check. `wasm-ccm plugin test` (host/src/cli/plugin-test.ts) is its command line.
import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import type { Logger } from '../log/logger.ts';
import type { Capability, DescribeResponse } from '../abi/index.ts';
import {
  DEFAULT_LIMITS,
  type LoadedPlugin,
  loadPlugin,
  unpackModule,
  exportedFunctionNames,
  readModule,
} from '../plugin/index.ts';
import { errorMessage } from '../util/error-message.ts';
import {
  type Check,
  type CheckContext,
  CheckFailed,
  CheckIncomplete,
  type CheckResult,
  CheckSkipped,
  CloudRequests,
} from './check.ts';
import { instanceChecks } from './checks/instance-checks.ts';
import { cleanUpLoadBalancer, loadBalancerChecks } from './checks/lb-checks.ts';
import { finalChecks, pluginChecks } from './checks/plugin-checks.ts';
import { cleanUpRoute, routeChecks } from './checks/route-checks.ts';
import { credentialWarnings } from './credential-reach.ts';
import type { Fixture } from './fixture.ts';
import { Probe } from './probe.ts';

// What the testing package (packages/wasm-ccm: wasm-ccm/testing) offers vendors' unit tests: the kit's ABI objects and
// its probe of one call.
export { testNode, testPort, testService } from './abi-objects.ts';
export { describeOutcome, type Outcome, Probe } from './probe.ts';
export type { CheckResult, CheckStatus } from './check.ts';
export { type Fixture, FixtureError, loadFixtureText, parseFixture } from './fixture.ts';
import { type ConformanceReport, summarize } from './report.ts';
export { type ConformanceReport, formatReport, type Verdict } from './report.ts';

export interface ConformanceOptions {
  /** The plugin's .wasm file. */
  pluginPath: string;
  /** The --cloud-config text handed to ccm_initialize. */
  cloudConfig: string;
  fixture: Fixture;
  /** Credentials file (host format) the HTTP broker attaches to the plugin's requests. */
  credentialsFile?: string;
  /** Hosts the plugin may reach (`host` or `host:port`). */
  allowedHosts?: string[];
  /** Per-call deadline; default the runtime's (10 s). */
  callTimeoutMs?: number;
  /** Receives the runtime's and the plugin's log records. */
  logger?: Logger;
}

/** Every check in the order they run; finalChecks come after, cleanup in between. */
export const CHECKS: readonly Check[] = [...pluginChecks, ...instanceChecks, ...loadBalancerChecks, ...routeChecks];

const LOAD_TITLE = 'load: import policy, describe, exports, initialize';

export async function runConformance(options: ConformanceOptions): Promise<ConformanceReport> {
  const started = performance.now();
  let warnings: string[] = [];
  const report = (description: DescribeResponse | undefined, results: CheckResult[]): ConformanceReport => ({
    pluginPath: options.pluginPath,
    description,
    warnings,
    notProbed: { ...options.fixture.notProbed },
    results,
    summary: summarize(results),
    elapsedMs: performance.now() - started,
  });
  const cloud = new CloudRequests();

  let loaded: { plugin: LoadedPlugin; exports: Set<string> };
  try {
    loaded = await loadForKit(options, cloud);
  } catch (err) {
    const loadMs = performance.now() - started;
    return report(undefined, [
      { group: 'plugin', title: LOAD_TITLE, status: 'fail', detail: errorMessage(err), ms: loadMs },
    ]);
  }
  const { plugin } = loaded;
  const results: CheckResult[] = [
    {
      group: 'plugin',
      title: LOAD_TITLE,
      status: 'pass',
      detail: `declares ${[...plugin.capabilities].join(', ') || 'no capabilities'}`,
      ms: performance.now() - started,
    },
  ];
  if (options.credentialsFile) warnings = await credentialWarnings(options.credentialsFile, options.allowedHosts ?? []);
  const ctx = checkContext(options, loaded, cloud, options.credentialsFile ? warnings : undefined);
  try {
    for (const check of CHECKS) results.push(await runCheck(check, ctx));
    for (const check of finalChecks) results.push(await runCheck(check, ctx));
    // Leave the vendor's cloud as it was, even after failures (errors here are not the plugin's verdict).
    await cleanUpLoadBalancer(ctx).catch(() => undefined);
    await cleanUpRoute(ctx).catch(() => undefined);
  } finally {
    await plugin.close();
  }
  return report(plugin.description, results);
}

/** Loads the module as the host does (a .gz one decompressed first), every HTTP request it makes recorded. */
async function loadForKit(
  options: ConformanceOptions,
  cloud: CloudRequests,
): Promise<{ plugin: LoadedPlugin; exports: Set<string> }> {
  const raw = new Uint8Array(await readFile(options.pluginPath));
  const bytes = (await unpackModule(raw, basename(options.pluginPath), DEFAULT_LIMITS.maxModuleBytes)).module;
  // Read, not compiled: loading the plugin compiles it, under the runtime's policies and V8 flags.
  const exports = exportedFunctionNames(readModule(bytes).exports);
  const plugin = await loadPlugin({
    source: { bytes, name: basename(options.pluginPath) },
    cloudConfig: options.cloudConfig,
    clusterName: options.fixture.clusterName,
    allowedHosts: options.allowedHosts ?? [],
    credentials: options.credentialsFile ? { file: options.credentialsFile, reloadIntervalMs: 0 } : undefined,
    onPluginRequest: (method, url) => cloud.record(method, url),
    // One instance: the checks run one call at a time, and a spare would only slow the start.
    pool: { size: 1 },
    limits: options.callTimeoutMs ? { callTimeoutMs: options.callTimeoutMs } : undefined,
    logger: options.logger,
  });
  return { plugin, exports };
}

function checkContext(
  options: ConformanceOptions,
  { plugin, exports }: { plugin: LoadedPlugin; exports: Set<string> },
  cloud: CloudRequests,
  credentialWarnings: readonly string[] | undefined,
): CheckContext {
  const probeTimeoutMs = plugin.limits.callTimeoutMs;
  return {
    probe: new Probe(plugin),
    cloud,
    hostGet: (url) => plugin.hostGet(url, probeTimeoutMs),
    credentialWarnings,
    fixture: options.fixture,
    description: plugin.description,
    declared: plugin.capabilities,
    exports,
    state: {
      providerIDs: new Map(),
      lbStatus: undefined,
      lbName: undefined,
      updateMutations: undefined,
      backendsAfterUpdate: undefined,
      lbCounts: {},
      lbCreated: false,
      routeCreated: false,
    },
  };
}

async function runCheck(check: Check, ctx: CheckContext): Promise<CheckResult> {
  const base = { group: check.group, title: check.title };
  if (check.capability !== undefined && !ctx.declared.has(check.capability as Capability)) {
    return { ...base, status: 'skip', detail: 'not declared', ms: 0 };
  }
  const started = performance.now();
  const ms = (): number => performance.now() - started;
  try {
    const detail = await check.run(ctx);
    return { ...base, status: 'pass', detail, ms: ms() };
  } catch (err) {
    if (err instanceof CheckSkipped) return { ...base, status: 'skip', detail: err.message, ms: ms() };
    if (err instanceof CheckIncomplete) return { ...base, status: 'incomplete', detail: err.message, ms: ms() };
    if (err instanceof CheckFailed) return { ...base, status: 'fail', detail: err.message, ms: ms() };
    return { ...base, status: 'fail', detail: `the check itself failed: ${errorMessage(err)}`, ms: ms() };
  }
}

/** 0 PASSED, 1 FAILED (a check failed), 3 INCOMPLETE (none failed, but one could not run and nothing excuses it). */
export function exitCodeOf(report: ConformanceReport): number {
  return { PASSED: 0, FAILED: 1, INCOMPLETE: 3 }[report.summary.verdict];
}
