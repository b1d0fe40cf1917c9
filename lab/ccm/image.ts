// How the image (Dockerfile ENTRYPOINT and ENV) starts Node, so benchmarks run wasm-ccm the way it ships; a unit test
// keeps the two equal.
import { spawnSync } from 'node:child_process';

/**
 * A 1 MiB young-generation semi-space instead of V8's default (up to 16 MiB, sized from the machine's memory): the
 * CCM's garbage is short-lived JSON, and a small nursery keeps resident memory down without costing CPU. Measured
 * with bench/upstream/rss.ts --compiled (5,000 Nodes, 10,000 Services): idle 162 -> 141 MB; steady 212 -> 162 MB when the
 * caches fill through the watch, 325-338 -> 227 MB when the CCM starts on the full cluster; CPU 6.3-11.5 -> 6.0-6.2 s.
 *
 * --heap-growing-percent=100: a full collection when the old generation has grown to twice what the last one left, as
 * Go's default (GOGC=100) lets the upstream CCM's heap grow. V8's own choice for this heap is ~1.3x: in the 1,000-LB
 * burst, requests queued at the client's rate limit outlive the 1 MiB nursery, ~2.5 MB/s reaches the old generation,
 * and a full collection of the ~22 MB heap ran every ~1.1 s (10 in the burst; 6 with the flag). V8's helper threads
 * 0.62 -> 0.50 CPU s in the burst (3 runs each); rss.ts on the full cluster steady 142 -> 149 MB, peak 175 MB both.
 */
export const IMAGE_NODE_ARGS: readonly string[] = ['--max-semi-space-size=1', '--heap-growing-percent=100'];

/**
 * The environment the image sets (Dockerfile ENV); benchmarks add it to the CCM's (bench/lib/start-ccm.ts).
 *
 * LD_PRELOAD=libjemalloc.so.2 (Debian's libjemalloc2, which the image installs; a bare name, found wherever the
 * architecture keeps its libraries): jemalloc instead of glibc's malloc. A burst of LoadBalancer syncs grows the pool
 * to ~10 plugin worker threads for a minute; glibc keeps what they and the main thread malloc'd resident after they
 * are gone (its arenas are never unmapped and only trimmed from the top), jemalloc gives freed pages back after ~10 s.
 * Measured with bench/upstream/rss-phases.ts (1,000 Nodes, 1,000 LBs at 50 ms, then 5,000 Nodes / 10,000 Services and 20 s):
 * steady RSS 317-318 -> 231 MB, of which the glibc heap and arenas were 110 MB (brk heap 71, arenas 38) against 26
 * before the burst; idle +4-7 MB (151.7 -> 155.6-158.5 MB).
 *
 * MALLOC_CONF=background_thread:true: jemalloc purges an arena's freed pages only when some thread allocates or frees
 * in it, so what an exited plugin worker freed stayed resident (its arena has no thread any more). Measured with 2
 * plugin instances, 9 more started, initialized and terminated (/proc RSS): 92 -> 197 -> 114 MB, and still 114 after
 * another 12 s; with background purging 106 after 15 s, 92 after 27 s. dirty_decay_ms:0 (purge at once) gave 91 MB
 * but 25-100% more CPU per HTTP request on loopback (42 -> 55-86 us); background_thread: no difference (40-45 us).
 */
export const IMAGE_ENV: Readonly<Record<string, string>> = {
  NODE_ENV: 'production',
  LD_PRELOAD: 'libjemalloc.so.2',
  MALLOC_CONF: 'background_thread:true',
};

/**
 * Why this machine cannot run the CCM with IMAGE_ENV, or undefined: the dynamic loader only warns and goes on when a
 * preloaded library is missing, which would measure glibc's malloc under the image's name.
 */
export function imageEnvProblem(preload: string | undefined = IMAGE_ENV.LD_PRELOAD): string | undefined {
  if (preload === undefined) return undefined;
  const probe = spawnSync(process.execPath, ['-e', ''], {
    env: { ...process.env, LD_PRELOAD: preload },
    encoding: 'utf8',
  });
  if (probe.status === 0 && !probe.stderr.includes(preload)) return undefined;
  return (
    `this machine cannot preload ${preload} as the image does (apt-get install libjemalloc2): ` +
    (probe.stderr.trim() || `exit ${probe.status}`)
  );
}
