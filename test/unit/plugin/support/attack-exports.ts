// The call-time attacks of the plugin-attack suite, as exports of one hostile module (lab/plugins/hostile-plugin.ts).
// Each export misbehaves one way; `ok`-ending ones would answer normally if the host let them get that far.
export const ATTACK_IMPORTS = `
  (import "extism:host/user" "ccm_input_read" (func $input_read (param i32 i32)))
  (import "extism:host/user" "ccm_http_bytes" (func $http_bytes (param i32 i32) (result i32)))
  (import "extism:host/env" "log_info" (func $log_info (param i64)))
  (import "extism:host/user" "ccm_log" (func $ccm_log (param i64)))
  (import "extism:host/env" "error_set" (func $error_set (param i64)))
  (import "extism:host/user" "ccm_now_ms" (func $now (result i64)))`;

export const ATTACK_EXPORTS = `
  (table $t 1 funcref)
  (func (export "loop") (result i32) (loop $l (br $l)) (i32.const 0))
  ;; Grows one page at a time forever: past the cap memory.grow answers -1 and the loop goes on.
  (func (export "grow_pages") (result i32) (loop $l (drop (memory.grow (i32.const 1))) (br $l)) (i32.const 0))
  ;; Grows to the cap, then writes past the end as an allocator that cannot grow would.
  (func (export "memory_bomb") (result i32)
    (block $full (loop $l (br_if $full (i32.eq (memory.grow (i32.const 16)) (i32.const -1))) (br $l)))
    (i32.store (i32.mul (memory.size) (i32.const 65536)) (i32.const 1))
    (i32.const 0))
  (func $deep (param i32) (result i32) (call $deep (i32.add (local.get 0) (i32.const 1))))
  (func (export "recurse") (result i32) (call $deep (i32.const 0)))
  ;; The stack runs out inside an import (deep recursion calling one at every level), caught at every level.
  (func $deep_import (param i32)
    (try (do (drop (call $now)) (call $deep_import (i32.add (local.get 0) (i32.const 1)))) (catch_all (drop (call $now)))))
  (func (export "recurse_import") (result i32) (call $deep_import (i32.const 0)) (call $ok))
  (func (export "bad_load") (result i32) (i32.load (i32.const -16)))
  (func (export "bad_block") (result i32) (drop (call $load_u8 (i64.shl (i64.const 99) (i64.const 48)))) (call $ok))
  (func (export "bad_input_read") (result i32) (call $input_read (i32.const -16) (i32.const 0)) (call $ok))
  (func (export "huge_output") (result i32)
    (call $output_set (call $alloc (i64.const 2097152)) (i64.const 2097152))
    (i32.const 0))
  (func (export "kernel_bomb") (result i32) (loop $l (drop (call $alloc (i64.const 1048576))) (br $l)) (i32.const 0))
  (func (export "block_bomb") (result i32) (loop $l (drop (call $alloc (i64.const 0))) (br $l)) (i32.const 0))
  (func (export "table_bomb") (result i32)
    (if (i32.eq (table.grow $t (ref.null func) (i32.const 10000000)) (i32.const -1)) (then unreachable))
    (call $ok))
  ;; Exception handling: each catches what an import threw and goes on.
  (func (export "catch_negative_alloc") (result i32)
    (local $i i32)
    (loop $l
      (try (do (drop (call $alloc (i64.const -104857600)))) (catch_all))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br_if $l (i32.lt_u (local.get $i) (i32.const 10))))
    ;; With the budget bypassed by 1 GB, 64 MiB more would be taken here.
    (drop (call $alloc (i64.const 67108864)))
    (call $ok))
  (func (export "catch_limit") (result i32)
    (try (do (drop (call $alloc (i64.const 1073741824)))) (catch_all))
    (call $ok))
  (func (export "catch_bad_block") (result i32)
    (try (do (drop (call $load_u8 (i64.shl (i64.const 99) (i64.const 48))))) (catch_all))
    (call $ok))
  (func (export "catch_host_error") (result i32)
    (try (do (drop (call $http_bytes (i32.const -16) (i32.const 64)))) (catch_all))
    (call $ok))
  ;; 100,000 records of 64 NULs: over the record count, within the bytes.
  (func (export "log_flood") (result i32)
    (local $i i32) (local $record i64)
    (local.set $record (call $alloc (i64.const 64)))
    (loop $l
      (call $log_info (local.get $record))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br_if $l (i32.lt_u (local.get $i) (i32.const 100000))))
    (call $ok))
  ;; 30 ccm_log records, each a message of 1,000 bytes that are not UTF-8: 1,041 bytes sent, 3,041 written.
  (data (i32.const 8192) "\\7b\\22\\6c\\65\\76\\65\\6c\\22\\3a\\22\\69\\6e\\66\\6f\\22\\2c\\22\\6d\\65\\73\\73\\61\\67\\65\\22\\3a\\22")
  (data (i32.const 9219) "\\22\\2c\\22\\66\\69\\65\\6c\\64\\73\\22\\3a\\7b\\7d\\7d")
  (func (export "log_invalid_utf8") (result i32)
    (local $i i32) (local $j i32) (local $block i64)
    (loop $fill
      (i32.store8 (i32.add (i32.const 8219) (local.get $j)) (i32.const 0xff))
      (local.set $j (i32.add (local.get $j) (i32.const 1)))
      (br_if $fill (i32.lt_u (local.get $j) (i32.const 1000))))
    (loop $records
      (local.set $block (call $alloc (i64.const 1041)))
      (local.set $j (i32.const 0))
      (loop $bytes
        (call $store_u8 (i64.add (local.get $block) (i64.extend_i32_u (local.get $j)))
          (i32.load8_u (i32.add (i32.const 8192) (local.get $j))))
        (local.set $j (i32.add (local.get $j) (i32.const 1)))
        (br_if $bytes (i32.lt_u (local.get $j) (i32.const 1041))))
      (call $ccm_log (local.get $block))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br_if $records (i32.lt_u (local.get $i) (i32.const 30))))
    (call $ok))
  ;; One record (5 NULs), then computing past the deadline.
  (func (export "log_then_loop") (result i32)
    (call $log_info (call $alloc (i64.const 5)))
    (loop $l (br $l)) (i32.const 0))
  ;; 100 records of 10 KiB of NULs: within the record count, 6 MB as the host writes them (a NUL is 6 bytes).
  (func (export "log_nul_flood") (result i32)
    (local $i i32) (local $record i64)
    (local.set $record (call $alloc (i64.const 10240)))
    (loop $l
      (call $log_info (local.get $record))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br_if $l (i32.lt_u (local.get $i) (i32.const 100))))
    (call $ok))
  ;; An Extism error of 4 MiB of NULs, and a non-zero return.
  (func (export "huge_error") (result i32)
    (call $error_set (call $alloc (i64.const 4194304)))
    (i32.const 1))`;
