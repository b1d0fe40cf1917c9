// undici's Agent without the rest of undici. Importing 'undici' loads all of it (fetch, WebSocket, EventSource,
// caches, mocks) although the CCM uses only Agent and the dispatcher API (`dispatch`, and `request` for watches):
// these modules alone cost the process ~10 MB less resident memory. undici's index is also what gives every
// Dispatcher its request/stream/pipeline methods, so this does the same. undici is pinned in package.json;
// test/unit/net/undici-agent.test.ts checks, in a process that never loads the index, that this is still so.
import { createRequire } from 'node:module';
import type { Agent as UndiciAgent, Dispatcher } from 'undici';

const require = createRequire(import.meta.url);

const DispatcherClass = require('undici/lib/dispatcher/dispatcher.js') as typeof Dispatcher;
Object.assign(DispatcherClass.prototype, require('undici/lib/api/index.js') as object);

export const Agent = require('undici/lib/dispatcher/agent.js') as typeof UndiciAgent;
export type Agent = UndiciAgent;
