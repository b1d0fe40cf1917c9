// undici's Agent without the rest of undici. Importing 'undici' loads all of it (fetch, WebSocket, EventSource,
// caches, mocks) although the CCM uses only Agent's dispatch: its own module costs the process ~5 MB less resident
// memory and ~0.1 s less start-up CPU. undici is pinned in package.json; test/unit/net/undici-agent.test.ts checks
// that this is still the very class 'undici' exports.
import { createRequire } from 'node:module';
import type { Agent as UndiciAgent } from 'undici';

const require = createRequire(import.meta.url);

export const Agent = require('undici/lib/dispatcher/agent.js') as typeof UndiciAgent;
export type Agent = UndiciAgent;
