// component-base prints a metric's stability level in front of its help text (`# HELP workqueue_depth [BETA] Current
// depth of workqueue`), and dashboards and the metrics stability checks read it there: every metric wasm-ccm shares
// with upstream carries upstream's level, and wasm-ccm's own metrics are ALPHA.
export type StabilityLevel = 'ALPHA' | 'BETA' | 'STABLE';

function withStability(level: StabilityLevel, help: string): string {
  return `[${level}] ${help}`;
}

export const alpha = (help: string): string => withStability('ALPHA', help);
export const beta = (help: string): string => withStability('BETA', help);
