// Child process of http1-chunk-flood.test.ts, run with the chart's heap (--max-old-space-size=256): a plugin's framed
// HTTP request (ccm_http_bytes) through the broker to a server that answers `argv[2]` bytes in 1-byte chunks. Prints
// the status, the body's length and the V8 heap in use once the answer is in hand.
import { CredentialStore } from '../../../../host/src/plugin/broker/credential-store.ts';
import { HostAllowList } from '../../../../host/src/plugin/broker/allow-list.ts';
import { HttpBroker } from '../../../../host/src/plugin/broker/http-broker.ts';
import { readAnswerFrame, requestFrame } from '../../plugin/support/frames.ts';
import { chunkFloodServer } from './chunk-flood.ts';

const bodyBytes = Number(process.argv[2]);
const server = await chunkFloodServer(bodyBytes);
const broker = new HttpBroker({
  allowList: new HostAllowList([server.host]),
  credentials: CredentialStore.empty(),
  maxResponseBytes: 8 * 1024 * 1024,
  defaultTimeoutMs: 60_000,
  maxTimeoutMs: 60_000,
  maxRedirects: 1,
});
const frame = requestFrame({ method: 'GET', url: `${server.origin}/flood`, headers: {}, timeoutMs: 60_000 });
const answer = readAnswerFrame(await broker.handleBytes(frame, new AbortController().signal));
const heapMiB = Math.round(process.memoryUsage().heapUsed / 1048576);
console.log(JSON.stringify({ status: answer.head.status, bodyBytes: answer.body.length, heapMiB }));
broker.close();
server.close();
