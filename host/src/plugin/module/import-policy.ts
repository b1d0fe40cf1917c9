// Which imports a plugin may have: the Extism kernel functions js-sdk 1.0.3 provides (`extism:host/env`) and the
// wasm-ccm host functions (`extism:host/user`), each with its exact signature. Everything else is refused before
// the module is compiled, with a message that says what to change in the plugin's build.
import type { FunctionType, ValueType, WasmModuleInfo } from './module-reader.ts';

export const EXTISM_KERNEL_MODULE = 'extism:host/env';
export const CCM_HOST_MODULE = 'extism:host/user';

type Signature = readonly [params: readonly ValueType[], results: readonly ValueType[]];

const I64 = 'i64';
const I32 = 'i32';

/** Kernel functions of @extism/extism 1.0.3, which wasm-ccm lets plugins use. */
export const KERNEL_FUNCTIONS: Readonly<Record<string, Signature>> = {
  alloc: [[I64], [I64]],
  free: [[I64], []],
  length: [[I64], [I64]],
  length_unsafe: [[I64], [I64]],
  load_u8: [[I64], [I32]],
  load_u64: [[I64], [I64]],
  store_u8: [[I64, I32], []],
  store_u64: [[I64, I64], []],
  input_offset: [[], [I64]],
  input_length: [[], [I64]],
  input_load_u8: [[I64], [I32]],
  input_load_u64: [[I64], [I64]],
  output_set: [[I64, I64], []],
  error_set: [[I64], []],
  config_get: [[I64], [I64]],
  var_get: [[I64], [I64]],
  var_set: [[I64, I64], []],
  log_debug: [[I64], []],
  log_info: [[I64], []],
  log_warn: [[I64], []],
  log_error: [[I64], []],
};

/** Host functions of ABI v1. */
const HOST_FUNCTIONS: Readonly<Record<string, Signature>> = {
  ccm_http: [[I64], [I64]],
  ccm_log: [[I64], []],
  ccm_now_ms: [[], [I64]],
  // ABI 1.1: (guest address, length), linear memory pointers of a wasm32 module.
  ccm_input_read: [[I32, I32], []],
  // ABI 1.3: (guest address, length) of the request frame -> length of the answer frame, which
  // ccm_http_answer_read(guest address, length) then copies in (broker/http-frame.ts).
  ccm_http_bytes: [[I32, I32], [I32]],
  ccm_http_answer_read: [[I32, I32], []],
  // ABI 1.4: milliseconds to block the instance's thread (guest-host-functions.ts caps them).
  ccm_sleep_ms: [[I32], []],
};

// Kernel names that exist in other Extism runtimes but must not be used here, and why.
const REFUSED_KERNEL_FUNCTIONS: Readonly<Record<string, string>> = {
  http_request: 'Extism HTTP is disabled in wasm-ccm; use the ccm_http host function',
  http_status_code: 'Extism HTTP is disabled in wasm-ccm; use the ccm_http host function',
  http_headers: '@extism/extism 1.0.3 does not provide it (the plugin would fail to link)',
  get_log_level: '@extism/extism 1.0.3 does not provide it (the plugin would fail to link)',
  log_trace: '@extism/extism 1.0.3 does not provide it (the plugin would fail to link)',
};

export class ImportPolicyError extends Error {
  override name = 'ImportPolicyError';
  readonly violations: readonly string[];
  constructor(violations: string[]) {
    super(`plugin imports what wasm-ccm does not provide: ${violations.join('; ')}`);
    this.violations = violations;
  }
}

/** Throws an ImportPolicyError listing every import the host refuses. */
export function checkImports(info: WasmModuleInfo): void {
  const violations: string[] = [];
  for (const entry of info.imports) {
    const label = `${entry.module}.${entry.name}`;
    if (entry.descriptor.kind !== 'function') {
      violations.push(`${label} is a ${entry.descriptor.kind} import (only functions may be imported)`);
      continue;
    }
    const type = info.types[entry.descriptor.typeIndex];
    if (entry.module === EXTISM_KERNEL_MODULE) {
      const refused = REFUSED_KERNEL_FUNCTIONS[entry.name];
      if (refused !== undefined) violations.push(`${label}: ${refused}`);
      else checkSignature(violations, label, KERNEL_FUNCTIONS[entry.name], type);
    } else if (entry.module === CCM_HOST_MODULE) {
      checkSignature(violations, label, HOST_FUNCTIONS[entry.name], type);
    } else if (entry.module.startsWith('wasi')) {
      violations.push(
        `${label}: WASI is not available to plugins (no file system, no environment, no clock); build without WASI`,
      );
    } else if (entry.module === 'env') {
      violations.push(
        `${label}: the 'env' module is not provided` +
          (entry.name === 'abort' ? ' (AssemblyScript: build with --use abort=<your module>/<abort function>)' : ''),
      );
    } else {
      violations.push(`${label}: unknown import module '${entry.module}'`);
    }
  }
  if (violations.length > 0) throw new ImportPolicyError(violations);
}

function checkSignature(
  violations: string[],
  label: string,
  expected: Signature | undefined,
  actual: FunctionType | undefined,
): void {
  if (expected === undefined) {
    violations.push(`${label}: no such function`);
    return;
  }
  if (actual === undefined) {
    violations.push(`${label}: refers to a missing function type`);
    return;
  }
  const [params, results] = expected;
  if (!sameTypes(params, actual.params) || !sameTypes(results, actual.results)) {
    violations.push(
      `${label}: has type ${formatType(actual.params, actual.results)}, expected ${formatType(params, results)}`,
    );
  }
}

function sameTypes(a: readonly ValueType[], b: readonly ValueType[]): boolean {
  return a.length === b.length && a.every((t, i) => t === b[i]);
}

function formatType(params: readonly ValueType[], results: readonly ValueType[]): string {
  return `(${params.join(', ')}) -> (${results.join(', ')})`;
}
