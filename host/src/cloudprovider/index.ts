export * from './errors.ts';
export * from './provider.ts';
