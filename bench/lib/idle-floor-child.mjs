/* global process, console, setInterval, URL, WebAssembly */
// One step of bench/upstream/idle-floor.ts, run as a Node process of its own: the least a Node.js CCM holds at idle, one piece
// at a time. Plain JavaScript, so that no TypeScript stripping is loaded and measured. argv[2] is the step:
//   node   an idle event loop;
//   watch  + one TLS connection to the apiserver with a watch on Nodes open (FLOOR_SERVER, FLOOR_CA, FLOOR_TOKEN);
//   wasm   + one worker thread holding an instance of a Wasm module (FLOOR_WASM; every import a function that
//          throws: the module is instantiated, never called).
// Prints "ready" once everything is up.
import { readFileSync } from 'node:fs';

const STEPS = ['node', 'watch', 'wasm'];
const step = process.argv[2] ?? '';
if (!STEPS.includes(step)) throw new Error(`step: want one of ${STEPS.join(', ')}, got "${step}"`);
setInterval(() => {}, 1 << 30);

if (step !== 'node') {
  const { connect } = await import('node:tls');
  const { isIP } = await import('node:net');
  const server = new URL(process.env.FLOOR_SERVER ?? '');
  await new Promise((resolve, reject) => {
    const socket = connect({
      host: server.hostname,
      port: Number(server.port),
      ca: process.env.FLOOR_CA,
      ...(isIP(server.hostname) ? {} : { servername: server.hostname }),
    });
    socket.once('secureConnect', () =>
      socket.write(
        `GET /api/v1/nodes?watch=true HTTP/1.1\r\nhost: ${server.host}\r\n` +
          `authorization: Bearer ${process.env.FLOOR_TOKEN}\r\naccept: application/json\r\n\r\n`,
      ),
    );
    socket.once('data', (chunk) => {
      const head = chunk.toString('latin1');
      if (head.startsWith('HTTP/1.1 200')) resolve(undefined);
      else reject(new Error(`watch refused: ${head.split('\r\n')[0]}`));
    });
    socket.on('data', () => {});
    socket.once('error', reject);
  });
}

if (step === 'wasm') {
  const { Worker } = await import('node:worker_threads');
  const module = new WebAssembly.Module(readFileSync(process.env.FLOOR_WASM ?? ''));
  const worker = new Worker(
    `const { parentPort, workerData } = require('node:worker_threads');
     const imports = {};
     for (const i of WebAssembly.Module.imports(workerData)) {
       (imports[i.module] ??= {})[i.name] = () => { throw new Error('not wired'); };
     }
     globalThis.instance = new WebAssembly.Instance(workerData, imports);
     parentPort.postMessage('up');
     setInterval(() => {}, 1 << 30);`,
    { eval: true, workerData: module, name: 'floor-wasm' },
  );
  await new Promise((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
}
console.log('ready');
