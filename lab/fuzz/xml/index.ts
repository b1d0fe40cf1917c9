export * from './adversarial.ts';
export * from './generate.ts';
export * from './judge.ts';
export * from './run.ts';
export * from './timing.ts';
