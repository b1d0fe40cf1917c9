export * from './cloud-requests.ts';
export * from './proc-stats.ts';
export * from './prom-text.ts';
export * from './results.ts';
export * from './stats.ts';
export * from './table.ts';
export * from './token-bucket.ts';
