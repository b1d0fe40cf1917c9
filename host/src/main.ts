#!/usr/bin/env node
// wasm-ccm: exit 2 for a bad command line or kubeconfig (the message names the flag), 1 for a start-up failure
// or a lost lease, 0 after a requested stop (SIGTERM/SIGINT, or under npx the exit of npm's shell).
import { type CCMHandle, StartupError, startCCM } from './app/ccm.ts';
import { startedByNpm, watchNpmParent } from './app/npm-parent.ts';
import { KubeConfigError, loadKubeConfig } from './kube/client/kubeconfig.ts';
import type { LogFormat } from './log/klog.ts';
import { createKlogLogger, Verbosity } from './log/logger.ts';
import { buildInfo, rawVersion } from './metrics/build-info.ts';
import { CCM_FLAGS, parseCommandLine } from './options/ccm-options.ts';
import { FlagError } from './options/flagset.ts';
import { flagLines } from './options/print-flags.ts';
import { errorMessage } from './util/error-message.ts';
import { packageVersion } from './util/package-version.ts';

// The subcommand the flag set cannot describe: shown after the flags so a vendor with only the package finds it.
const SUBCOMMANDS = `Commands:
  wasm-ccm plugin test --plugin=<file.wasm> --fixture=<file>   run a provider plugin through the conformance kit
                                                             against its cloud (see wasm-ccm plugin test --help)
  wasm-ccm dev --plugin=<file.wasm> --fixture=<file> [--watch] run it in a local cluster (the npm package's
                                                             command; see wasm-ccm dev --help)`;

async function main(argv: readonly string[]): Promise<number> {
  if (argv[0] === 'plugin') {
    // `wasm-ccm plugin test ...`: the provider conformance kit.
    // Loaded only for the subcommand: the CCM itself never needs the conformance kit.
    const kit = await import('./cli/plugin-test.ts');
    if (argv[1] !== 'test') {
      process.stderr.write('usage: wasm-ccm plugin test --plugin=<file.wasm> ... (see wasm-ccm plugin test --help)\n');
      return 2;
    }
    return kit.runPluginTest(argv.slice(2));
  }
  let parsed;
  try {
    parsed = parseCommandLine(argv);
  } catch (err) {
    if (err instanceof FlagError) {
      process.stderr.write(`wasm-ccm: ${err.message}\n`);
      return 2;
    }
    throw err;
  }
  if (parsed.kind === 'help') {
    process.stdout.write(`${parsed.text}\n\n${SUBCOMMANDS}\n`);
    return 0;
  }
  if (parsed.kind === 'version') {
    const version = packageVersion();
    process.stdout.write(parsed.raw ? `${rawVersion(buildInfo(version))}\n` : `wasm-ccm ${version}\n`);
    return 0;
  }
  const { options } = parsed;
  const format = options.flags['logging-format'] as LogFormat;
  const verbosity = new Verbosity(options.flags.v);
  const logger = createKlogLogger({
    format,
    verbosity,
    splitStream: options.flags[format === 'json' ? 'log-json-split-stream' : 'log-text-split-stream'],
  });
  // What upstream's command prints before it starts: every flag from -v=1, then its version.
  const flagDump = logger.v(1);
  if (flagDump.enabled) for (const line of flagLines(CCM_FLAGS, options.flags)) flagDump.print(line);
  logger.v(0).print(`Version: v${packageVersion()}`);
  for (const warning of options.warnings) logger.warn(warning);

  let kubeConfig;
  try {
    kubeConfig = loadKubeConfig({ kubeconfig: options.flags.kubeconfig, master: options.flags.master }).credentials;
  } catch (err) {
    if (err instanceof KubeConfigError) {
      process.stderr.write(`wasm-ccm: ${err.message}\n`);
      return 2;
    }
    throw err;
  }

  let handle: CCMHandle | undefined;
  let earlyStop: string | undefined;
  const early = new AbortController();
  const stop = (reason: string): void => {
    if (handle) handle.shutdown(reason);
    else {
      earlyStop = reason;
      early.abort();
    }
  };
  process.on('SIGTERM', () => stop('received SIGTERM'));
  process.on('SIGINT', () => stop('received SIGINT'));
  // Under npx the signal stops at npm's shell: its exit is the stop request (app/npm-parent.ts).
  if (startedByNpm()) watchNpmParent((which) => stop(`${which} exited (started by npm, which passes no signal on)`));
  try {
    handle = await startCCM(options, kubeConfig, { logger, verbosity }, early.signal);
  } catch (err) {
    if (earlyStop) return 0;
    if (err instanceof StartupError) {
      logger.error('start-up failed', { error: err.message });
      process.stderr.write(`wasm-ccm: ${err.message}\n`);
      return 1;
    }
    throw err;
  }
  if (earlyStop) handle.shutdown(earlyStop);
  return handle.done;
}

// The entry point runs when loaded: `node host/src/main.ts`, the image's `node dist/host/src/main.js`, and the
// package's bin (bin/wasm-ccm.cjs, which checks the Node.js version first). Nothing imports it as a library.
main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`wasm-ccm: ${err instanceof Error ? (err.stack ?? err.message) : errorMessage(err)}\n`);
    process.exit(1);
  },
);
