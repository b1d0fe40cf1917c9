export * from './generate.ts';
export * from './judge.ts';
export * from './mutate.ts';
export * from './random.ts';
export * from './run.ts';
