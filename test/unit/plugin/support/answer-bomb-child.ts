// Child process of plugin-attacks-answers.test.ts, run with the chart's heap (--max-old-space-size=256): a plugin
// answers getZone with a valid zone and an unknown field nested `argv[2]` levels deep, under the old 16 MiB output
// cap, through loadPlugin. Prints the error the call failed with and the process's RSS.
import { loadPlugin } from '../../../../host/src/plugin/runtime/load-plugin.ts';
import { answering, echoModule } from './echo-plugin.ts';

const depth = Number(process.argv[2]);
const plugin = await loadPlugin({
  source: { bytes: echoModule(), name: 'echo.wasm' },
  pool: { size: 1 },
  limits: { maxOutputBytes: 16 * 1024 * 1024, callTimeoutMs: 60_000 },
});
const answer = `{"ok":{"failureDomain":"z","region":"r"},"x":${'['.repeat(depth)}${']'.repeat(depth)}}`;
const error = await plugin.call('getZone', answering(answer)).then(
  () => 'answered',
  (err: unknown) => (err as Error).message,
);
console.log(JSON.stringify({ error, rssMiB: Math.round(process.memoryUsage().rss / 1048576) }));
await plugin.close();
