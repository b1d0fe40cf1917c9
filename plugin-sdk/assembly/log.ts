// Structured logging to the host logger (ccm_log). Records carry the plugin and the method being served on the host
// side, so messages need not repeat them.
import { LogLevel, LogRecord } from "./abi/types.generated";
import { ccm_log } from "./host/imports";
import { toBlock } from "./host/io";
import { JsonWriter } from "./json/writer";

/** Key/value context for a log record: `fields().set("instance", id).set("zone", z)`. */
export function fields(): Map<string, string> {
  return new Map<string, string>();
}

export class Log {
  /** Sends one record; level is one of LogLevel's values (debug, info, warn, error). */
  static write(level: string, message: string, fields: Map<string, string> | null = null): void {
    const record = new LogRecord();
    record.level = level;
    record.message = message;
    if (fields !== null) record.fields = fields;
    const w = new JsonWriter(64 + message.length);
    record.encode(w);
    const block = toBlock(w);
    ccm_log(block.offset);
    block.free();
  }

  static debug(message: string, fields: Map<string, string> | null = null): void {
    Log.write(LogLevel.debug, message, fields);
  }

  static info(message: string, fields: Map<string, string> | null = null): void {
    Log.write(LogLevel.info, message, fields);
  }

  static warn(message: string, fields: Map<string, string> | null = null): void {
    Log.write(LogLevel.warn, message, fields);
  }

  static error(message: string, fields: Map<string, string> | null = null): void {
    Log.write(LogLevel.error, message, fields);
  }
}
