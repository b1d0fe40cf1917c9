// The `file:line` of the code that called the logger, as klog prints it in every record's header (text) or under
// `caller` (JSON). V8 hands over structured call sites when asked through prepareStackTrace, so no stack text is
// made or parsed; `bench/host/log-format.ts` measures what a record costs with and without it.
import { basename } from 'node:path';

/** Frames to look through: callerOf, the logger's lookup, emit and the level method come before the caller. */
const DEPTH = 6;

type SiteList = NodeJS.CallSite[];
const structured = (_err: Error, sites: SiteList): SiteList => sites;

/**
 * The first frame outside the logging code, as `file.ext:line`, or `<unknown>:0` when there is none (a record made
 * from a frame without a file name). `skip` tells which files belong to the logging code.
 */
export function callerOf(skip: (fileName: string) => boolean): string {
  const limit = Error.stackTraceLimit;
  const prepare = Error.prepareStackTrace;
  Error.stackTraceLimit = DEPTH;
  Error.prepareStackTrace = structured;
  const holder: { stack?: SiteList } = {};
  try {
    Error.captureStackTrace(holder);
    const sites = holder.stack ?? [];
    for (const site of sites) {
      const file = site.getFileName();
      if (file === undefined || file === null || skip(file)) continue;
      return `${basename(file)}:${site.getLineNumber() ?? 0}`;
    }
    return '<unknown>:0';
  } finally {
    Error.prepareStackTrace = prepare;
    Error.stackTraceLimit = limit;
  }
}
