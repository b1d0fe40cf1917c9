// A record's level and fields: what every logger takes (logger.ts) and every format writes (klog.ts).
export type LogLevel = 'debug' | 'info' | 'warn' | 'error';
export type LogFields = Record<string, unknown>;
