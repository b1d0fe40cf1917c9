// What a compiled plugin may import (plugin-sdk/ABI.md): the Extism kernel functions the SDK uses and the wasm-ccm host
// functions. Anything else either fails to link on the host (get_log_level, log_trace and http_headers on Extism
// 1.0.3; env.abort and WASI, which the sandbox does not provide) or is outside the ABI (http_request, var_*,
// config_* other than config_get, which PluginConfig reads).

export const ALLOWED_IMPORTS: Readonly<Record<string, readonly string[]>> = {
  'extism:host/env': [
    'alloc',
    'free',
    'length',
    'load_u8',
    'load_u64',
    'store_u8',
    'store_u64',
    'input_length',
    'input_load_u8',
    'input_load_u64',
    'output_set',
    'error_set',
    'config_get',
  ],
  'extism:host/user': [
    'ccm_http',
    'ccm_log',
    'ccm_now_ms',
    'ccm_input_read',
    'ccm_http_bytes',
    'ccm_http_answer_read',
    'ccm_sleep_ms',
  ],
};

const WHY: Record<string, string> = {
  'extism:host/env.get_log_level': 'fails to link on Extism 1.0.3',
  'extism:host/env.log_trace': 'fails to link on Extism 1.0.3',
  'extism:host/env.http_headers': 'fails to link on Extism 1.0.3',
  'env.abort': 'build with --use abort=__ccm_abort (the SDK preset does)',
};

export interface ModuleImport {
  module: string;
  name: string;
  kind: string;
}

/** The imports of a compiled module. */
export function listImports(wasm: Uint8Array): ModuleImport[] {
  // A module's bytes are never shared memory; the cast only narrows the DOM typing of BufferSource.
  return WebAssembly.Module.imports(new WebAssembly.Module(wasm as Uint8Array<ArrayBuffer>)).map((i) => ({
    module: i.module,
    name: i.name,
    kind: i.kind,
  }));
}

/** One line per import outside the allowed set, with the reason when it is a known trap; empty when all is well. */
export function forbiddenImports(imports: readonly ModuleImport[]): string[] {
  const bad: string[] = [];
  for (const i of imports) {
    const allowed = ALLOWED_IMPORTS[i.module];
    if (i.kind === 'function' && allowed?.includes(i.name)) continue;
    const id = `${i.module}.${i.name}`;
    const why = WHY[id] ?? (i.module.startsWith('wasi') ? 'the sandbox has no WASI' : 'not part of the wasm-ccm ABI');
    bad.push(`${id} (${i.kind}): ${why}`);
  }
  return bad;
}
