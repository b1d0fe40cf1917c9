// Plugin log records (ccm_log, and Extism's own log_* kernel functions) reach the host logger tagged with the
// plugin and the method being served. A record that is not a valid LogRecord is reported rather than dropped.
import type { LogFields, Logger, VerboseLogger } from '../../log/logger.ts';
import { METHODS, type MethodName, validateValue } from '../../abi/index.ts';
import type { LogMessage } from '../sandbox/worker/worker-protocol.ts';

const METHOD_BY_EXPORT = new Map<string, MethodName>(
  (Object.keys(METHODS) as MethodName[]).map((method) => [METHODS[method].exportName, method]),
);

function methodOfExport(exportName: string): string {
  return METHOD_BY_EXPORT.get(exportName) ?? exportName;
}

// The tags the host puts on a plugin's records (here, in load-plugin.ts and the hot swapper): a reader trusts them to
// say who wrote a record, so a plugin's field of the same name must not replace them (a record's own fields win over
// its logger's). Such a field is kept as `field.<name>`, and so is a plugin field already named `field.…`, so that
// `field.plugin` always is the renamed one. A name with anything but letters, digits and `_.-/` is renamed too, its
// other characters made `_`: the text log format writes names as they are, so a name with a space, a quote or a line
// break could write a tag of its own (`k="v" plugin=`) or a whole forged line.
const HOST_TAGS = new Set(['plugin', 'method', 'source', 'provider', 'shadow', 'component']);
const RENAMED_PREFIX = 'field.';
const PLAIN_NAME = /^[A-Za-z0-9_./-]+$/;

function mustRename(name: string): boolean {
  return HOST_TAGS.has(name) || name.startsWith(RENAMED_PREFIX) || !PLAIN_NAME.test(name);
}

/** The plugin's fields, none of them taking the place of a host tag or writing one. */
function pluginFields(fields: LogFields): LogFields {
  const names = Object.keys(fields);
  // Copied only when some name must change: most records have none.
  if (!names.some(mustRename)) return fields;
  const out: LogFields = {};
  for (const name of names) {
    const kept = mustRename(name) ? `${RENAMED_PREFIX}${name.replace(/[^A-Za-z0-9_./-]/g, '_')}` : name;
    out[kept] = fields[name];
  }
  return out;
}

/** Returns the handler for one plugin's worker log messages. */
export function pluginLogForwarder(logger: () => Logger): (message: LogMessage) => void {
  // A plugin's records are all written on one line below (a load balancer ensured, say, writes one per Service): the
  // logger of that line looks its caller up once per plugin logger (atOneSite) instead of once per record.
  const recordLoggers = new WeakMap<Logger, Logger>();
  const recordLoggerOf = (base: Logger): Logger => {
    let pinned = recordLoggers.get(base);
    if (pinned === undefined) {
      pinned = base.atOneSite?.() ?? base;
      recordLoggers.set(base, pinned);
    }
    return pinned;
  };
  return (message) => {
    const base = logger();
    const tags = { method: methodOfExport(message.exportName) || undefined, source: message.source };
    if (message.source !== 'ccm_log') {
      base.child(tags)[message.level](message.text);
      return;
    }
    let value: unknown;
    try {
      value = JSON.parse(message.text);
    } catch {
      const tagged = base.child(tags);
      tagged.warn('plugin wrote a log record that is not JSON', { record: message.text.slice(0, 200) });
      return;
    }
    const record = validateValue('LogRecord', value);
    if (!record.ok) {
      const tagged = base.child(tags);
      tagged.warn('plugin wrote an invalid log record', { problem: record.error });
      return;
    }
    recordLoggerOf(base).child(tags)[record.value.level](record.value.message, pluginFields(record.value.fields));
  };
}

/** A logger that forwards to whatever `current()` returns at the time (the plugin's name is known after describe). */
export function delegatingLogger(current: () => Logger): Logger {
  return {
    debug: (m, f) => current().debug(m, f),
    info: (m, f) => current().info(m, f),
    warn: (m, f) => current().warn(m, f),
    error: (m, f) => current().error(m, f),
    v: (n) => delegatingVerbose(() => current().v(n)),
    child: (fields) => delegatingLogger(() => current().child(fields)),
  };
}

function delegatingVerbose(current: () => VerboseLogger): VerboseLogger {
  return {
    get enabled() {
      return current().enabled;
    },
    info: (m, f) => current().info(m, f),
    print: (text) => current().print(text),
  };
}
