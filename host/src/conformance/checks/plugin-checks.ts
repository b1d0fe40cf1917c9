// Checks of the plugin as a whole: what ccm_describe says, whether its exports match its declared capabilities,
// and (run last) whether every answer of the run was valid against the ABI and every error well-formed.
import { ABI_MAJOR, ALWAYS_METHODS, CAPABILITIES, type Capability, METHODS } from '../../abi/index.ts';
import { type Check, expectOk, fail, skip } from '../check.ts';
import { describeOutcome } from '../probe.ts';
import { sampleRequest } from '../sample-request.ts';

// A provider name is the scheme of its provider IDs (`<name>://<id>`): RFC 3986 scheme characters.
const SCHEME = /^[a-z][a-z0-9+.-]*$/;

export const pluginChecks: Check[] = [
  {
    group: 'plugin',
    title: 'every credential reaches an allowed host',
    async run(ctx) {
      const warnings = ctx.credentialWarnings;
      if (warnings === undefined) skip('no --credentials');
      if (warnings.length > 0) fail(warnings.join('; '));
      return 'each credential host is an allowed host, port for port';
    },
  },
  {
    group: 'plugin',
    title: 'describe: ABI 1.x, name, version, capabilities',
    async run(ctx) {
      const d = expectOk(await ctx.probe.call('describe', {}), 'ccm_describe');
      const problems: string[] = [];
      if (!d.abi.startsWith(`${ABI_MAJOR}.`)) problems.push(`abi "${d.abi}" is not ${ABI_MAJOR}.x`);
      if (!SCHEME.test(d.providerName)) problems.push(`providerName "${d.providerName}" cannot be a providerID scheme`);
      if (d.version.trim() === '') problems.push('version is empty');
      const unknown = d.capabilities.filter((c) => !Object.hasOwn(CAPABILITIES, c));
      if (unknown.length > 0) problems.push(`unknown capabilities ${unknown.join(', ')} (ignored by this host)`);
      if (new Set(d.capabilities).size !== d.capabilities.length) problems.push('capabilities listed twice');
      if (problems.length > 0) fail(problems.join('; '));
      return `${d.providerName} ${d.version}, abi ${d.abi}, hasClusterID ${d.hasClusterID}`;
    },
  },
  {
    group: 'plugin',
    title: 'exports of every declared capability',
    async run(ctx) {
      const missing: string[] = [];
      for (const m of ALWAYS_METHODS) if (!ctx.exports.has(METHODS[m].exportName)) missing.push(METHODS[m].exportName);
      for (const cap of ctx.declared) {
        for (const m of CAPABILITIES[cap]) {
          if (!ctx.exports.has(METHODS[m].exportName)) missing.push(`${METHODS[m].exportName} (${cap})`);
        }
      }
      if (missing.length > 0) fail(`missing exports: ${missing.join(', ')}`);
      return `${[...ctx.exports].filter((e) => e.startsWith('ccm_')).length} ccm_* exports`;
    },
  },
  {
    group: 'plugin',
    title: 'undeclared capabilities answer NotImplemented',
    async run(ctx) {
      const undeclared = (Object.keys(CAPABILITIES) as Capability[]).filter((c) => !ctx.declared.has(c));
      const methods = undeclared.flatMap((c) => CAPABILITIES[c]).filter((m) => ctx.exports.has(METHODS[m].exportName));
      if (methods.length === 0) skip('no exports beyond the declared capabilities');
      const wrong: string[] = [];
      for (const method of methods) {
        const outcome = await ctx.probe.call(method, sampleRequest(method, ctx.fixture));
        if (outcome.kind !== 'error' || outcome.error.code !== 'NotImplemented') {
          wrong.push(`${method} answered ${describeOutcome(outcome)}`);
        }
      }
      if (wrong.length > 0) fail(`a capability that is not declared must answer NotImplemented: ${wrong.join('; ')}`);
      return `${methods.length} methods of ${undeclared.join(', ')}`;
    },
  },
];

/**
 * A declared capability's method answering NotImplemented is one left to the SDK's default: the build's capability
 * check catches it when the capabilities are a literal list, this catches it whatever the provider's source.
 */
const declaredMethodsCheck: Check = {
  group: 'answers',
  title: 'no method of a declared capability answers NotImplemented',
  async run(ctx) {
    const methods = new Set(
      ctx.probe.calls
        .filter((c) => c.code === 'NotImplemented')
        .map((c) => c.method)
        .filter((m) => {
          const capability = METHODS[m].capability;
          return capability !== null && ctx.declared.has(capability);
        }),
    );
    if (methods.size > 0) {
      const named = [...methods].map((m) => `${m} (${METHODS[m].capability})`).join(', ');
      fail(`declared, but answered NotImplemented: ${named}: override each, or do not declare the capability`);
    }
    return `${[...ctx.declared].flatMap((c) => CAPABILITIES[c]).length} methods of ${[...ctx.declared].join(', ') || 'nothing'}`;
  },
};

/** Run after every other check: they are about all the answers the run collected. */
export const finalChecks: Check[] = [
  {
    group: 'answers',
    title: 'every answer is valid against the ABI',
    async run(ctx) {
      const n = ctx.probe.calls.length;
      const v = ctx.probe.violations;
      if (v.length > 0) {
        const shown = countDuplicates(v).slice(0, 5).join('; ');
        fail(`${v.length} of ${n} answers break the ABI: ${shown}${v.length > 5 ? '; ...' : ''}`);
      }
      return `${n} calls`;
    },
  },
  {
    group: 'answers',
    title: 'errors are well-formed',
    async run(ctx) {
      const errors = ctx.probe.calls.filter((c) => c.kind !== 'ok');
      // Error envelopes the validator refused: a code where the ABI forbids it, a Retry without a delay, ...
      const refused = ctx.probe.calls
        .filter((c) => c.kind === 'violation' && c.code !== undefined)
        .map((c) => `${c.method} answered ${c.code} where the ABI does not allow it (or malformed)`);
      const blank = ctx.probe.blankErrors.map((b) => `${b} without a message`);
      const problems = countDuplicates([...refused, ...blank]);
      if (problems.length > 0) fail(problems.join('; '));
      const codes = [...new Set(errors.map((c) => c.code ?? '?'))].sort();
      return errors.length === 0 ? 'no errors seen' : `${errors.length} errors: ${codes.join(', ')}`;
    },
  },
  declaredMethodsCheck,
];

/** "x (2 times)" instead of the same reason twice. */
function countDuplicates(items: readonly string[]): string[] {
  const counts = new Map<string, number>();
  for (const item of items) counts.set(item, (counts.get(item) ?? 0) + 1);
  return [...counts].map(([item, n]) => (n > 1 ? `${item} (${n} times)` : item));
}
