// Child process of wasm-code-gc.test.ts: loses `rounds` x 2 instances at their deadline, each having tiered up its
// import wrappers (spinner.ts), then prints how many instances were replaced.
import { Registry } from 'prom-client';
import { instanceRestarts, loadSpinner, spinTwice } from '../../../../lab/plugins/index.ts';

const rounds = Number(process.argv[2] ?? 10);
const registry = new Registry();
const plugin = await loadSpinner(registry);
for (let i = 0; i < rounds; i++) await spinTwice(plugin);
await plugin.callExport('probe', new Uint8Array(0));
while ((await instanceRestarts(registry)) < rounds * 2) await new Promise((r) => setTimeout(r, 20));
console.log(`replaced ${await instanceRestarts(registry)}`);
await plugin.close();
