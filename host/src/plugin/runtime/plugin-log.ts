// Plugin log records (ccm_log, and Extism's own log_* kernel functions) reach the host logger tagged with the
// plugin and the method being served. A record that is not a valid LogRecord is reported rather than dropped.
import type { Logger } from '../../log/logger.ts';
import { METHODS, type MethodName, validateValue } from '../../abi/index.ts';
import type { LogMessage } from '../worker/worker-protocol.ts';

const METHOD_BY_EXPORT = new Map<string, MethodName>(
  (Object.keys(METHODS) as MethodName[]).map((method) => [METHODS[method].exportName, method]),
);

export function methodOfExport(exportName: string): string {
  return METHOD_BY_EXPORT.get(exportName) ?? exportName;
}

/** Returns the handler for one plugin's worker log messages. */
export function pluginLogForwarder(logger: () => Logger): (message: LogMessage) => void {
  return (message) => {
    const tagged = logger().child({ method: methodOfExport(message.exportName) || undefined, source: message.source });
    if (message.source !== 'ccm_log') {
      tagged[message.level](message.text);
      return;
    }
    let value: unknown;
    try {
      value = JSON.parse(message.text);
    } catch {
      tagged.warn('plugin wrote a log record that is not JSON', { record: message.text.slice(0, 200) });
      return;
    }
    const record = validateValue('LogRecord', value);
    if (!record.ok) {
      tagged.warn('plugin wrote an invalid log record', { problem: record.error });
      return;
    }
    tagged[record.value.level](record.value.message, record.value.fields);
  };
}

/** A logger that forwards to whatever `current()` returns at the time (the plugin's name is known after describe). */
export function delegatingLogger(current: () => Logger): Logger {
  return {
    debug: (m, f) => current().debug(m, f),
    info: (m, f) => current().info(m, f),
    warn: (m, f) => current().warn(m, f),
    error: (m, f) => current().error(m, f),
    child: (fields) => delegatingLogger(() => current().child(fields)),
  };
}
