// component-base's kubernetes_build_info, with upstream's name, help, labels and stability: dashboards and alerts
// join on it (the version column of a fleet view, "pods running an old build"). The values describe wasm-ccm's own
// build: the package version (major/minor from it), Node in the columns upstream fills with Go's version and
// compiler, and the platform as Go names it (linux/amd64). No build stamps a commit or date: those are empty.
import { GaugeVec } from './vec.ts';
import type { Registry } from 'prom-client';
import { beta } from './stability.ts';

const LABELS = [
  'major',
  'minor',
  'git_version',
  'git_commit',
  'git_tree_state',
  'build_date',
  'go_version',
  'compiler',
  'platform',
] as const;

export type BuildInfo = Record<(typeof LABELS)[number], string>;

// Node's process.arch where it differs from Go's GOARCH.
const GO_ARCH: Readonly<Record<string, string>> = { x64: 'amd64', ia32: '386' };

/** The labels of wasm-ccm `version` (package.json's, e.g. 0.1.0) running in this process. */
export function buildInfo(version: string): BuildInfo {
  const [major = '', minor = ''] = /^(\d+)\.(\d+)/.exec(version)?.slice(1) ?? [];
  return {
    major,
    minor,
    git_version: /^\d/.test(version) ? `v${version}` : version,
    git_commit: '',
    git_tree_state: '',
    build_date: '',
    go_version: process.version,
    compiler: 'node',
    platform: `${process.platform}/${GO_ARCH[process.arch] ?? process.arch}`,
  };
}

/** Registers kubernetes_build_info on `registry`, 1 with the build's labels. */
export function registerBuildInfo(registry: Registry, info: BuildInfo): void {
  new GaugeVec({
    name: 'kubernetes_build_info',
    help: beta(
      "A metric with a constant '1' value labeled by major, minor, git version, git commit, git tree state, build " +
        'date, Go version, and compiler from which Kubernetes was built, and platform on which it is running.',
    ),
    labelNames: LABELS,
    registers: [registry],
  })
    .withLabelValues(...LABELS.map((label) => info[label]))
    .set(1);
}

/** `--version=raw`: the build's fields in the shape upstream prints (Go's %#v of version.Info). */
export function rawVersion(info: BuildInfo): string {
  const fields: [string, string][] = [
    ['Major', info.major],
    ['Minor', info.minor],
    ['EmulationMajor', ''],
    ['EmulationMinor', ''],
    ['MinCompatibilityMajor', ''],
    ['MinCompatibilityMinor', ''],
    ['GitVersion', info.git_version],
    ['GitCommit', info.git_commit],
    ['GitTreeState', info.git_tree_state],
    ['BuildDate', info.build_date],
    ['GoVersion', info.go_version],
    ['Compiler', info.compiler],
    ['Platform', info.platform],
  ];
  return `version.Info{${fields.map(([k, v]) => `${k}:${JSON.stringify(v)}`).join(', ')}}`;
}
