// Waiting for the lab OpenStack's services to come up: a check polled until it passes, failing at once with the log
// tail of a service whose process exits meanwhile.
import type { ServiceProcess } from './process.ts';

function exited(service: ServiceProcess, what: string): Error {
  return new Error(
    `${service.name} exited (status ${String(service.exitStatus)}) while waiting for ${what}; ` +
      `log ${service.logPath}:\n${service.tail()}`,
  );
}

/**
 * Polls `check` until it returns true. Throws with the log tail of the first of `services` that exits meanwhile,
 * or, when time runs out, with the last error `check` threw and the log tail of the first service.
 */
export async function waitUntil(
  services: ServiceProcess | readonly ServiceProcess[],
  what: string,
  check: () => Promise<boolean>,
  timeoutMs = 120_000,
  intervalMs = 250,
): Promise<void> {
  const watched = Array.isArray(services) ? services : [services as ServiceProcess];
  const deadline = Date.now() + timeoutMs;
  let lastError = '';
  while (Date.now() < deadline) {
    const dead = watched.find((s) => !s.running);
    if (dead !== undefined) throw exited(dead, what);
    try {
      if (await check()) return;
    } catch (err) {
      lastError = err instanceof Error ? err.message : String(err);
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
  const first = watched[0];
  throw new Error(
    `timed out after ${timeoutMs} ms waiting for ${what}${lastError ? ` (last error: ${lastError})` : ''}` +
      (first ? `; log ${first.logPath}:\n${first.tail()}` : ''),
  );
}
