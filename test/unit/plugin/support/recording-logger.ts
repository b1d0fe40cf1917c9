// A Logger that keeps what it is given, for assertions.
import type { LogFields, Logger, LogLevel } from '../../../../host/src/log/logger.ts';

export interface LogRecordSeen {
  level: LogLevel;
  message: string;
  fields: LogFields;
}

export function recordingLogger(): { logger: Logger; records: LogRecordSeen[] } {
  const records: LogRecordSeen[] = [];
  const make = (bound: LogFields): Logger => {
    const add = (level: LogLevel) => (message: string, fields?: LogFields) => {
      records.push({ level, message, fields: { ...bound, ...fields } });
    };
    // V(n) records are kept as debug records with their verbosity under `v` (n 0: info).
    const verbose = (n: number) => ({
      enabled: true,
      info: (message: string, fields?: LogFields) =>
        records.push({ level: n === 0 ? 'info' : 'debug', message, fields: { ...bound, ...fields, v: n } }),
      print: (message: string) => records.push({ level: n === 0 ? 'info' : 'debug', message, fields: { v: n } }),
    });
    return {
      v: verbose,
      debug: add('debug'),
      info: add('info'),
      warn: add('warn'),
      error: add('error'),
      child: (f) => make({ ...bound, ...f }),
    };
  };
  return { logger: make({}), records };
}
