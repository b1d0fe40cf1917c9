// Entry point for running the conformance kit on its own: node host/src/cli/plugin-test-main.ts --plugin=... ...
// The wasm-ccm binary dispatches `wasm-ccm plugin test ...` to runPluginTest with the same arguments.
import { runPluginTest } from './plugin-test.ts';

process.exit(await runPluginTest(process.argv.slice(2)));
