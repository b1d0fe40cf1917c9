// The wasm-ccm command of the npm package (bin/wasm-ccm.cjs loads this after its Node.js version check): `wasm-ccm
// dev` runs a provider in a local cluster; any other command line is the CCM's own (host/src/main.ts, which runs
// when loaded and sets its exit status).
const [command, ...rest] = process.argv.slice(2);
if (command === 'dev') {
  const { devMain } = await import('./dev/index.ts');
  process.exit(await devMain(rest));
} else {
  await import('../../../host/src/main.ts');
}
