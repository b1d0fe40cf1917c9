// The devcloud command (`npm run devcloud -- --port 8990 --token T ...` in the repository): runs devcloud until
// SIGINT/SIGTERM, then saves state; with a command after `--`, only while that command runs, exiting with its status.
import { spawn } from 'node:child_process';
import { HELP, parseCli } from './cli.ts';
import { type Devcloud, startDevcloud } from './index.ts';
import { InstancesFileError, readInstancesFile } from './instances-file.ts';
import { ApiError } from './errors.ts';

const parsed = parseCli(process.argv.slice(2), process.env);
if (parsed.kind === 'help') {
  process.stdout.write(HELP);
  process.exit(0);
}
if (parsed.kind === 'error') {
  process.stderr.write(`devcloud: ${parsed.message}\nRun with --help for usage.\n`);
  process.exit(2);
}

/** Runs `command` while devcloud serves; SIGINT/SIGTERM go to the command, whose exit ends devcloud too. */
function runWhileServing(cloud: Devcloud, command: readonly string[]): void {
  const [file = '', ...args] = command;
  const child = spawn(file, args, { stdio: 'inherit', env: { ...process.env, DEVCLOUD_URL: cloud.url } });
  const forward = (signal: NodeJS.Signals) => child.kill(signal);
  process.on('SIGINT', forward);
  process.on('SIGTERM', forward);
  const finish = (code: number) => {
    cloud.stop().then(
      () => process.exit(code),
      () => process.exit(code === 0 ? 1 : code),
    );
  };
  child.once('error', (err) => {
    process.stderr.write(`devcloud: cannot run ${file}: ${err.message}\n`);
    finish(127);
  });
  child.once('exit', (code, signal) => finish(code ?? (signal === 'SIGINT' ? 130 : 143)));
}

function serveUntilSignalled(cloud: Devcloud): void {
  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    process.stdout.write(`devcloud: ${signal}, saving state and stopping\n`);
    cloud.stop().then(
      () => process.exit(0),
      (err: unknown) => {
        process.stderr.write(`devcloud: stop failed: ${String(err)}\n`);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => shutdown('SIGINT'));
  process.on('SIGTERM', () => shutdown('SIGTERM'));
}

let cloud: Devcloud | undefined;
try {
  const instances = parsed.instancesFile === undefined ? [] : await readInstancesFile(parsed.instancesFile);
  cloud = await startDevcloud(parsed.options);
  for (const [i, spec] of instances.entries()) {
    try {
      cloud.addInstance(spec);
    } catch (err) {
      if (err instanceof ApiError) throw new InstancesFileError(`--instances: instances[${i}].${err.message}`);
      throw err;
    }
  }
  const state = parsed.options.stateFile ? `, state in ${parsed.options.stateFile}` : ', state in memory only';
  const held = instances.length === 0 ? '' : `, ${instances.length} instances from ${parsed.instancesFile}`;
  process.stdout.write(`devcloud listening on ${cloud.url} (API at ${cloud.url}/v1${state}${held})\n`);
  if (parsed.command) runWhileServing(cloud, parsed.command);
  else serveUntilSignalled(cloud);
} catch (err) {
  await cloud?.stop();
  if (err instanceof InstancesFileError) {
    process.stderr.write(`devcloud: ${err.message}\n`);
    process.exit(2);
  }
  // Start-up failures (port in use, unreadable state file) are not usage errors: exit 1.
  process.stderr.write(`devcloud: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
}
