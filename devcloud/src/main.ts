// `npm run devcloud -- --port 8990 --token T ...`: runs devcloud until SIGINT/SIGTERM, then saves state.
import { HELP, parseCli } from './cli.ts';
import { startDevcloud } from './index.ts';

const parsed = parseCli(process.argv.slice(2), process.env);
if (parsed.kind === 'help') {
  process.stdout.write(HELP);
  process.exit(0);
}
if (parsed.kind === 'error') {
  process.stderr.write(`devcloud: ${parsed.message}\nRun with --help for usage.\n`);
  process.exit(2);
}

try {
  const cloud = await startDevcloud(parsed.options);
  const state = parsed.options.stateFile ? `, state in ${parsed.options.stateFile}` : ', state in memory only';
  process.stdout.write(`devcloud listening on ${cloud.url} (API at ${cloud.url}/v1${state})\n`);
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
} catch (err) {
  // Start-up failures (port in use, unreadable state file) are not usage errors: exit 1.
  process.stderr.write(`devcloud: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
}
