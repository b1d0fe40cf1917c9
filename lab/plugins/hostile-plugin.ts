// Hostile plugins written in WebAssembly text: a minimal provider (ccm_describe, ccm_initialize, and `probe`, which
// answers how many probes its instance has served: "1" means a fresh instance) around the attack exports a test adds.
// The template's kernel imports come first, so an attack may add imports of its own (WAT wants imports first).
import type { Registry } from 'prom-client';
import { assembleWat, type WatFeature } from './wat.ts';

const describe = (version: string, capabilities: string[]): string =>
  JSON.stringify({ ok: { abi: '1.0', providerName: 'hostile', version, capabilities, hasClusterID: false } });
const EMPTY_OK = '{"ok":{}}';
const ZONE = JSON.stringify({ ok: { failureDomain: 'hostile-zone', region: 'hostile-region' } });

export interface HostileModule {
  /** Imports beyond the template's (alloc, store_u8, output_set, load_u8). */
  imports?: string;
  /** Definitions: functions, tables, globals, tags. `$emit(ptr, len)` sets linear memory bytes as the output. */
  body?: string;
  /** The memory declaration (default: 1 page, exported). */
  memory?: string;
  features?: WatFeature[];
  /** The version ccm_describe answers (default 1.0.0). */
  version?: string;
  /** Declares the zones capability, answering every zone method with hostile-zone/hostile-region. */
  zones?: boolean;
  /** With `zones`, replaces the zone methods' bodies (functions returning i32). */
  zoneBody?: string;
  /** Replaces ccm_initialize's body (a function returning i32). */
  initialize?: string;
}

export function hostileModule(spec: HostileModule = {}): Uint8Array {
  const description = describe(spec.version ?? '1.0.0', spec.zones ? ['zones'] : []);
  const zoneExports = ['ccm_get_zone', 'ccm_get_zone_by_provider_id', 'ccm_get_zone_by_node_name']
    .map(
      (name) =>
        `(func (export "${name}") (result i32) ${spec.zoneBody ?? `(call $emit (i32.const 768) (i32.const ${ZONE.length})) (i32.const 0)`})`,
    )
    .join('\n  ');
  const wat = `(module
  (import "extism:host/env" "alloc" (func $alloc (param i64) (result i64)))
  (import "extism:host/env" "store_u8" (func $store_u8 (param i64 i32)))
  (import "extism:host/env" "load_u8" (func $load_u8 (param i64) (result i32)))
  (import "extism:host/env" "output_set" (func $output_set (param i64 i64)))
  ${spec.imports ?? ''}
  ${spec.memory ?? '(memory (export "memory") 1)'}
  (global $probes (mut i32) (i32.const 0))
  (data (i32.const 0) "${watString(description)}")
  (data (i32.const 512) "${watString(EMPTY_OK)}")
  (data (i32.const 768) "${watString(ZONE)}")
  (func $emit (param $ptr i32) (param $len i32)
    (local $block i64) (local $i i32)
    (local.set $block (call $alloc (i64.extend_i32_u (local.get $len))))
    (block $done (loop $next
      (br_if $done (i32.ge_u (local.get $i) (local.get $len)))
      (call $store_u8 (i64.add (local.get $block) (i64.extend_i32_u (local.get $i)))
        (i32.load8_u (i32.add (local.get $ptr) (local.get $i))))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br $next)))
    (call $output_set (local.get $block) (i64.extend_i32_u (local.get $len))))
  (func $ok (result i32) (call $emit (i32.const 512) (i32.const ${EMPTY_OK.length})) (i32.const 0))
  (func (export "ccm_describe") (result i32) (call $emit (i32.const 0) (i32.const ${description.length})) (i32.const 0))
  (func (export "ccm_initialize") (result i32) ${spec.initialize ?? '(call $ok)'})
  ${spec.zones ? zoneExports : ''}
  (func (export "probe") (result i32)
    (global.set $probes (i32.add (global.get $probes) (i32.const 1)))
    ;; one digit: probes served by this instance, 9 at most
    (i32.store8 (i32.const 1000) (i32.add (i32.const 48)
      (select (global.get $probes) (i32.const 9) (i32.lt_u (global.get $probes) (i32.const 9)))))
    (call $emit (i32.const 1000) (i32.const 1))
    (i32.const 0))
  ${spec.body ?? ''}
)`;
  return assembleWat(wat, spec.features ?? []);
}

function watString(text: string): string {
  return [...new TextEncoder().encode(text)].map((b) => `\\${b.toString(16).padStart(2, '0')}`).join('');
}

/** Instances a plugin lost so far, every reason together: counted when a lost instance's worker has exited. */
export async function instanceRestarts(registry: Registry): Promise<number> {
  const metric = (await registry.getMetricsAsJSON()).find((m) => m.name === 'wasm_ccm_plugin_instance_restarts_total');
  return (metric?.values ?? []).reduce((sum, v) => sum + v.value, 0);
}
