export * from './cases.ts';
export * from './clients.ts';
export * from './judge.ts';
export * from './responses.ts';
export * from './rng.ts';
export * from './run.ts';
export * from './server.ts';
