// A plugin's HTTP request as the broker logs it at -v=4: method, host and path, the status or the error's code, and
// the time it took. Never the query string (a presigned URL carries a credential there) nor the error's message
// (it may quote the URL or the answer), and never a header.
import type { VerboseLogger } from '../../log/logger.ts';
import type { RequestHead } from './request-frame.ts';

export type RequestOutcome = { status: number } | { error: string };

export function logPluginRequest(
  log: VerboseLogger,
  head: RequestHead | undefined,
  started: number,
  outcome: RequestOutcome,
): void {
  let host = '';
  let path = '';
  try {
    if (head) ({ host, pathname: path } = new URL(head.url));
  } catch {
    // not a URL: the error code says so
  }
  const duration = `${(performance.now() - started).toFixed(3)}ms`;
  log.info('plugin HTTP request', { method: head?.method.toUpperCase() ?? '', host, path, ...outcome, duration });
}
