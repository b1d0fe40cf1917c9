export * from './generate.ts';
export * from './judge.ts';
export * from './run.ts';
