// The method tables of plugin-sdk/ABI.md and plugin-sdk/README.md, written between the docs'
// `<!-- generated:<region> -->` and `<!-- /generated -->` markers so a method added to the definition reaches the docs
// with `npm run gen:abi` alone.
import type { AbiModel, Field, MethodDef, TypeDef } from './model.ts';

function typeOf(model: AbiModel, name: string): TypeDef {
  return model.types.get(name)!;
}

// ABI.md shows a call's own request/response by its fields (`{clusterName, nodes[], nodesRef?}`: [] a list, ? added by
// a later minor) and a shared type by its name.
function wireShape(model: AbiModel, name: string): string {
  if (!/(Request|Response)$/.test(name)) return `\`${name}\``;
  const field = (f: Field): string => `${f.name}${f.type.kind === 'list' ? '[]' : ''}${f.since > 0 ? '?' : ''}`;
  return `\`{${typeOf(model, name).fields.map(field).join(', ')}}\``;
}

function capabilityCell(method: MethodDef, code: boolean): string {
  if (method.capability === null) return '(always)';
  return code ? `\`${method.capability}\`` : method.capability;
}

/** ABI.md's call table: every method with its export and wire shapes. */
export function emitAbiCallTable(model: AbiModel): string {
  const rows = model.methods.map(
    (m) =>
      `| ${capabilityCell(m, false)} | ${m.name} | \`${m.exportName}\` | ${wireShape(model, m.request)} | ${wireShape(model, m.response)} |`,
  );
  return ['| capability | method | export | request | response |', '|---|---|---|---|---|', ...rows].join('\n');
}

function classCell(model: AbiModel, name: string): string {
  const fields = typeOf(model, name).fields.map((f) => f.name);
  return `\`${name}\` (${fields.length === 0 ? 'nothing' : fields.join(', ')})`;
}

/** plugin-sdk/README.md's table: each method a provider overrides, with its request and `out` classes. */
export function emitSdkCapabilityTable(model: AbiModel): string {
  // describe is answered by the SDK itself, not by a provider.
  const rows = model.methods
    .filter((m) => m.name !== 'describe')
    .map(
      (m) =>
        `| ${capabilityCell(m, true)} | \`${m.name}\` | ${classCell(model, m.request)} | ${classCell(model, m.response)} | ${m.facade?.doc ?? ''} |`,
    );
  return [
    '| capability | method | request class (fields) | `out` class (fields) | note |',
    '|---|---|---|---|---|',
    ...rows,
  ].join('\n');
}
