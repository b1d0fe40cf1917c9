// --controllers: "*" enables every controller on by default, "name" enables one, "-name" disables one; the first
// entry naming a controller decides (component-base semantics). Newer upstream names are accepted as aliases.
export const CONTROLLER_NAMES = ['cloud-node', 'cloud-node-lifecycle', 'service', 'route'] as const;
export type ControllerName = (typeof CONTROLLER_NAMES)[number];

const ALIASES: Record<string, ControllerName> = {
  'cloud-node-controller': 'cloud-node',
  'cloud-node-lifecycle-controller': 'cloud-node-lifecycle',
  'service-lb-controller': 'service',
  'node-route-controller': 'route',
};

/** Upstream's canonical name of a controller (its /healthz check, k8s.io/cloud-provider names). */
export function upstreamControllerName(name: ControllerName): string {
  return Object.entries(ALIASES).find(([, short]) => short === name)?.[0] ?? name;
}

function canonical(name: string): ControllerName | undefined {
  if ((CONTROLLER_NAMES as readonly string[]).includes(name)) return name as ControllerName;
  return ALIASES[name];
}

/** Throws naming the first unknown controller; returns the enabled set. */
export function resolveControllers(entries: readonly string[]): Set<ControllerName> {
  const decided = new Map<ControllerName, boolean>();
  let star = false;
  for (const raw of entries) {
    const entry = raw.trim();
    if (entry === '*') {
      star = true;
      continue;
    }
    const disable = entry.startsWith('-');
    const name = canonical(disable ? entry.slice(1) : entry);
    if (!name) {
      throw new Error(`unknown controller "${entry}" (known: ${CONTROLLER_NAMES.join(', ')}, or * for all)`);
    }
    if (!decided.has(name)) decided.set(name, !disable);
  }
  return new Set(CONTROLLER_NAMES.filter((name) => decided.get(name) ?? star));
}
