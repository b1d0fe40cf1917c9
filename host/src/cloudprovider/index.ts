export * from './errors.ts';
export * from './provider.ts';
export * from './capability-set.ts';
export * from './batch.ts';
