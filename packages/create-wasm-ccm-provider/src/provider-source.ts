// The generated parts of a new provider's AssemblyScript: assembly/name.ts (the provider's name, the scheme of its
// providerIDs) and assembly/index.ts (the Provider subclass declaring the asked capabilities and delegating each
// method to its template module).
import { TEMPLATE_CAPABILITIES } from './capabilities.ts';

/** A provider name: a DNS label, usable as the providerID scheme and as --cloud-provider. */
export const PROVIDER_NAME = /^[a-z]([a-z0-9-]{0,61}[a-z0-9])?$/;

export function nameSource(name: string): string {
  return `// The provider's name: --cloud-provider, and the scheme of its providerIDs (${name}://<instance id>).\nexport const PROVIDER_NAME = "${name}";\n`;
}

function className(name: string): string {
  return `${name
    .split('-')
    .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
    .join('')}Provider`;
}

export function indexSource(name: string, capabilities: readonly string[]): string {
  const methods = capabilities.flatMap((c) => TEMPLATE_CAPABILITIES[c]?.methods.map((m) => ({ ...m, c })) ?? []);
  const modules = capabilities.map((c) => TEMPLATE_CAPABILITIES[c]?.module ?? c);
  const types = [...new Set(methods.flatMap((m) => [m.request, m.response]))].sort();
  const sdkImports = ['Capability', 'InitializeRequest', 'InitializeResponse', 'PluginError', 'Provider', ...types];
  const lines = [
    `// The ${name} provider: ${capabilities.join(', ')}. Each method delegates to its module; the modules speak the`,
    '// cloud API in assembly/api.ts. Written by create-wasm-ccm-provider; edit freely.',
    `import {\n${[...sdkImports, 'registerProvider'].map((i) => `  ${i},`).join('\n')}\n} from "@wasm-ccm/plugin-sdk";`,
    'import { Api } from "./api";',
    'import { Config, parseConfig } from "./config";',
    'import { PROVIDER_NAME } from "./name";',
    ...modules.map((mod) => `import * as ${mod} from "./${mod}";`),
    '',
    '// The Wasm exports (ccm_describe, ccm_initialize, ...): one line, always the same.',
    'export * from "@wasm-ccm/plugin-sdk/exports";',
    '',
    `class ${className(name)} extends Provider {`,
    '  private config: Config = new Config();',
    '  private api: Api = new Api("");',
    '',
    '  constructor() {',
    `    super(PROVIDER_NAME, "0.1.0", [${capabilities.map((c) => `Capability.${c}`).join(', ')}]);`,
    '    // Load balancers and routes are tagged with the cluster name.',
    '    this.hasClusterID = true;',
    '  }',
    '',
    '  initialize(req: InitializeRequest, out: InitializeResponse): PluginError | null {',
    '    const parsed = parseConfig();',
    '    if (parsed.error !== null) return parsed.error;',
    '    this.config = parsed.config;',
    '    this.api = new Api(this.config.url);',
    '    return null;',
    '  }',
    ...methods.flatMap((m) => [
      '',
      `  ${m.name}(req: ${m.request}, out: ${m.response}): PluginError | null {`,
      `    return ${TEMPLATE_CAPABILITIES[m.c]?.module}.${m.name}(this.${m.uses}, req, out);`,
      '  }',
    ]),
    '}',
    '',
    `registerProvider(new ${className(name)}());`,
    '',
  ];
  return lines.join('\n');
}
