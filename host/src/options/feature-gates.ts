// --feature-gates as component-base parses it (`Name=true,Other=false`, the flag repeatable), for the gates the
// upstream cloud-controller-manager v0.36 registers: cloud-provider's own (k8s.io/controller-manager
// pkg/features), component-base's logging and metrics gates, and AllAlpha/AllBeta. An unknown gate or a value
// strconv.ParseBool refuses is an error naming it, as upstream's is.
export type Stage = 'ALPHA' | 'BETA' | 'GA';

interface GateSpec {
  stage: Stage;
  default: boolean;
  /** What the gate does in wasm-ccm, for --help and the README. */
  effect: string;
}

const KNOWN_GATES = {
  AllAlpha: { stage: 'ALPHA', default: false, effect: 'turns on every alpha gate not set explicitly' },
  AllBeta: { stage: 'BETA', default: false, effect: 'turns on every beta gate not set explicitly' },
  CloudControllerManagerWatchBasedRoutesReconciliation: {
    stage: 'ALPHA',
    default: false,
    effect: 'the route controller also reconciles when a node is added or deleted or its pod CIDRs change',
  },
  CloudControllerManagerWebhook: {
    stage: 'ALPHA',
    default: false,
    effect: 'none: providers serve no webhooks through the plugin ABI',
  },
  ControllerManagerReleaseLeaderElectionLockOnExit: {
    stage: 'ALPHA',
    default: false,
    effect: 'none: wasm-ccm always releases its Lease when it stops (see "Where wasm-ccm differs")',
  },
  ContextualLogging: { stage: 'BETA', default: true, effect: 'none: records carry their fields either way' },
  LoggingAlphaOptions: { stage: 'ALPHA', default: false, effect: 'allows --log-*-split-stream' },
  LoggingBetaOptions: { stage: 'BETA', default: true, effect: 'none' },
  NativeHistograms: { stage: 'ALPHA', default: false, effect: 'none: histograms are the classic ones' },
} as const satisfies Record<string, GateSpec>;

export type GateName = keyof typeof KNOWN_GATES;
export type FeatureGates = Readonly<Record<GateName, boolean>>;

const TRUE = new Set(['1', 't', 'T', 'TRUE', 'true', 'True']);
const FALSE = new Set(['0', 'f', 'F', 'FALSE', 'false', 'False']);

function isGate(name: string): name is GateName {
  return Object.hasOwn(KNOWN_GATES, name);
}

/** The gates from the flag's `Name=value` entries (every occurrence of the flag, in order). Throws naming a bad one. */
export function parseFeatureGates(entries: readonly string[]): FeatureGates {
  const explicit = new Map<GateName, boolean>();
  for (const entry of entries) {
    if (entry.trim() === '') continue;
    const eq = entry.indexOf('=');
    if (eq === -1) throw new Error(`missing bool value for ${entry}`);
    const name = entry.slice(0, eq).trim();
    const raw = entry.slice(eq + 1).trim();
    if (!isGate(name)) throw new Error(`unrecognized feature gate: ${name}`);
    if (!TRUE.has(raw) && !FALSE.has(raw)) throw new Error(`invalid value of ${name}=${raw}, err: invalid syntax`);
    explicit.set(name, TRUE.has(raw));
  }
  // AllAlpha/AllBeta, when given, set every gate of their stage that is not set itself (false turns default-on
  // beta gates off), as component-base's setUnsetAlphaGates/setUnsetBetaGates do.
  const byStage: Partial<Record<Stage, boolean>> = {
    ALPHA: explicit.get('AllAlpha'),
    BETA: explicit.get('AllBeta'),
  };
  const gates = {} as Record<GateName, boolean>;
  for (const name of Object.keys(KNOWN_GATES) as GateName[]) {
    const spec: GateSpec = KNOWN_GATES[name];
    gates[name] = explicit.get(name) ?? byStage[spec.stage] ?? spec.default;
  }
  return gates;
}

/** The flag's help: the gates with their stage and default, as component-base lists them. */
export function featureGatesHelp(): string {
  const lines = Object.entries(KNOWN_GATES)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([name, g]) => `${name}=true|false (${g.stage} - default=${g.default})`);
  return `A set of key=value pairs that describe feature gates for alpha/experimental features. Options are: ${lines.join(', ')}`;
}
