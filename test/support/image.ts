// How the image (Dockerfile ENTRYPOINT) starts Node, so benchmarks run wasm-ccm the way it ships; a unit test keeps
// the two equal.

/**
 * A 1 MiB young-generation semi-space instead of V8's default (up to 16 MiB, sized from the machine's memory): the
 * CCM's garbage is short-lived JSON, and a small nursery keeps resident memory down without costing CPU. Measured
 * with bench/rss.ts --compiled (5,000 Nodes, 10,000 Services): idle 162 -> 141 MB; steady 212 -> 162 MB when the
 * caches fill through the watch, 325-338 -> 227 MB when the CCM starts on the full cluster; CPU 6.3-11.5 -> 6.0-6.2 s.
 */
export const IMAGE_NODE_ARGS: readonly string[] = ['--max-semi-space-size=1'];
