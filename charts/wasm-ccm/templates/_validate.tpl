{{/*
What values.schema.json cannot say: values wrong together, and values whose syntax is more than a pattern (CIDRs, IP
addresses, durations compared, extraArgs against the CCM's own flags). The CCM refuses each of these at start, so a
release would install and then crash-loop: `fail` here refuses it at `helm install` and `helm upgrade` instead, naming
the value and what to write. validate.yaml runs these checks; _validate-plugins.tpl checks the plugins.
*/}}
{{- define "wasm-ccm.validate" -}}
{{- include "wasm-ccm.validateModule" . }}
{{- include "wasm-ccm.validateProviders" . }}
{{- include "wasm-ccm.validateClasses" . }}
{{- include "wasm-ccm.validateNetwork" . }}
{{- include "wasm-ccm.validateClient" . }}
{{- include "wasm-ccm.validateExtraArgs" . }}
{{- end }}

{{/* An IPv4 address as Node's net.isIPv4 takes it: four decimal octets, no leading zeros. */}}
{{- define "wasm-ccm.ipv4Pattern" -}}
^(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])(\.(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])){3}$
{{- end }}

{{/* "IPv4" or "IPv6" for an address (eight hex groups, one `::` for a run of zeros, an IPv4 tail), else "". */}}
{{- define "wasm-ccm.ipFamily" -}}
{{- $ip := toString . }}
{{- $v4 := include "wasm-ccm.ipv4Pattern" "" }}
{{- if regexMatch $v4 $ip }}IPv4
{{- else if contains ":" $ip }}
{{- $ok := true }}
{{- $head := $ip }}
{{- $tail := last (splitList ":" $ip) }}
{{- if contains "." $tail }}
{{- $ok = regexMatch $v4 $tail }}
{{- $head = printf "%s0:0" (trimSuffix $tail $ip) }}
{{- end }}
{{- $halves := splitList "::" $head }}
{{- $groups := 0 }}
{{- range $halves }}
{{- if ne . "" }}
{{- range splitList ":" . }}
{{- if not (regexMatch "^[0-9a-fA-F]{1,4}$" .) }}{{ $ok = false }}{{ end }}
{{- $groups = add1 $groups }}
{{- end }}
{{- end }}
{{- end }}
{{- if gt (len $halves) 2 }}{{ $ok = false }}
{{- else if eq (len $halves) 2 }}{{ if gt $groups 7 }}{{ $ok = false }}{{ end }}
{{- else if ne $groups 8 }}{{ $ok = false }}
{{- end }}
{{- if $ok }}IPv6{{ end }}
{{- end }}
{{- end }}

{{/* Why `address/prefix` is not a CIDR, or "" when it is one. */}}
{{- define "wasm-ccm.cidrProblem" -}}
{{- $parts := splitList "/" . }}
{{- if ne (len $parts) 2 }}is not address/prefix
{{- else }}
{{- $family := include "wasm-ccm.ipFamily" (first $parts) }}
{{- $bits := ternary 32 128 (eq $family "IPv4") }}
{{- if not $family }}has "{{ first $parts }}", which is not an IP address
{{- else if or (not (regexMatch "^[0-9]{1,3}$" (last $parts))) (gt (atoi (last $parts)) $bits) }}has the prefix length "{{ last $parts }}" ({{ $family }}: 0 to {{ $bits }})
{{- end }}
{{- end }}
{{- end }}

{{/* A Go duration (the schema checked its syntax) in milliseconds, as a float. */}}
{{- define "wasm-ccm.durationMs" -}}
{{- $units := dict "ns" 0.000001 "us" 0.001 "µs" 0.001 "ms" 1.0 "s" 1000.0 "m" 60000.0 "h" 3600000.0 }}
{{- $total := 0.0 }}
{{- range regexFindAll "[0-9.]+(ns|us|µs|ms|s|m|h)" (toString .) -1 }}
{{- $unit := regexReplaceAll "^[0-9.]+" . "" }}
{{- $total = addf $total (mulf (float64 (trimSuffix $unit .)) (get $units $unit)) }}
{{- end }}
{{- $total }}
{{- end }}

{{/*
Fails unless the duration .value at .path lies from .min to .max milliseconds (.range says so in the message), the
range the CCM's flag or plugin configuration allows.
*/}}
{{- define "wasm-ccm.checkDuration" -}}
{{- $ms := float64 (include "wasm-ccm.durationMs" .value) }}
{{- if or (lt $ms (float64 .min)) (gt $ms (float64 .max)) }}
{{- fail (printf "%s: %q is out of range: write a duration from %s (e.g. %s)" .path .value .range .example) }}
{{- end }}
{{- end }}

{{/* --cluster-cidr and --bind-address as the CCM parses them (host/src/net/cidr.ts, node:net). */}}
{{- define "wasm-ccm.validateNetwork" -}}
{{- with .Values.clusterCIDR }}
{{- $cidrs := splitList "," . }}
{{- if gt (len $cidrs) 2 }}
{{- fail (printf "clusterCIDR: %q lists %d CIDRs: write one, or two for dual-stack (one IPv4, one IPv6), comma-separated" . (len $cidrs)) }}
{{- end }}
{{- $families := list }}
{{- range $cidrs }}
{{- $problem := include "wasm-ccm.cidrProblem" (trim .) }}
{{- if $problem }}
{{- fail (printf "clusterCIDR: %q %s: write the pods' CIDR as address/prefix, e.g. 10.244.0.0/16 or fd00:10:244::/56" (trim .) $problem) }}
{{- end }}
{{- $families = append $families (include "wasm-ccm.ipFamily" (first (splitList "/" (trim .)))) }}
{{- end }}
{{- if and (eq (len $families) 2) (eq (first $families) (last $families)) }}
{{- fail (printf "clusterCIDR: %q gives two %s CIDRs: two must be dual-stack, one IPv4 and one IPv6" . (first $families)) }}
{{- end }}
{{- end }}
{{- if not (include "wasm-ccm.ipFamily" .Values.bindAddress) }}
{{- fail (printf "bindAddress: %q is not an IP address: write one the pod has, e.g. 0.0.0.0 (all IPv4), :: (all) or 127.0.0.1" .Values.bindAddress) }}
{{- end }}
{{- end }}

{{/* The apiserver client's rate and leader election's timings, as the CCM checks them (options/ccm-options.ts). */}}
{{- define "wasm-ccm.validateClient" -}}
{{- $v := .Values }}
{{- if and (ge (float64 $v.kubeAPIQPS) 1.0) (lt (float64 $v.kubeAPIBurst) (float64 $v.kubeAPIQPS)) }}
{{- fail (printf "kubeAPIBurst: %v is below kubeAPIQPS (%v), so the rate limiter's bucket never fills: write a burst of at least %v" $v.kubeAPIBurst $v.kubeAPIQPS (ceil $v.kubeAPIQPS)) }}
{{- end }}
{{- include "wasm-ccm.checkDuration" (dict "path" "pluginLimits.callTimeout" "value" $v.pluginLimits.callTimeout "min" 1 "max" 600000 "range" "1ms to 10m" "example" "10s") }}
{{- $le := $v.leaderElection }}
{{- if $le.enabled }}
{{- range list "leaseDuration" "renewDeadline" "retryPeriod" }}
{{- if not (gt (float64 (include "wasm-ccm.durationMs" (get $le .))) 0.0) }}
{{- fail (printf "leaderElection.%s: %q is not a positive duration: write e.g. the default, %s" . (get $le .) (get (dict "leaseDuration" "15s" "renewDeadline" "10s" "retryPeriod" "2s") .)) }}
{{- end }}
{{- end }}
{{- $lease := float64 (include "wasm-ccm.durationMs" $le.leaseDuration) }}
{{- $renew := float64 (include "wasm-ccm.durationMs" $le.renewDeadline) }}
{{- $retry := float64 (include "wasm-ccm.durationMs" $le.retryPeriod) }}
{{- if le $lease $renew }}
{{- fail (printf "leaderElection.leaseDuration: %s is not longer than leaderElection.renewDeadline (%s): a standby would take the Lease while the leader may still renew it; write leaseDuration > renewDeadline > retryPeriod, e.g. 15s, 10s, 2s" $le.leaseDuration $le.renewDeadline) }}
{{- end }}
{{- if le $renew (mulf $retry 1.2) }}
{{- fail (printf "leaderElection.renewDeadline: %s is not longer than 1.2 x leaderElection.retryPeriod (%s), the jittered retry: the leader could give up before its first retry; write leaseDuration > renewDeadline > 1.2 x retryPeriod, e.g. 15s, 10s, 2s" $le.renewDeadline $le.retryPeriod) }}
{{- end }}
{{- end }}
{{- end }}

{{/*
extraArgs against the CCM's own flags: files/flags.json, generated from the flag table (scripts/gen-chart-flags.ts).
A name the CCM does not know, or a value its flag's type cannot take, fails here rather than in the pod.
*/}}
{{- define "wasm-ccm.validateExtraArgs" -}}
{{- $known := .Files.Get "files/flags.json" | fromJson }}
{{- $flags := $known.flags }}
{{- $managed := include "wasm-ccm.managedFlags" . | fromJson }}
{{- range $name, $value := .Values.extraArgs }}
{{- $type := get $flags $name }}
{{- $text := printf "%v" $value }}
{{- if hasKey $managed $name }}
{{- /* _args.tpl refuses it, naming the value to set instead. */}}
{{- else if hasPrefix "-" $name }}
{{- fail (printf "extraArgs.%s: write the flag's name without the leading dashes (%s: ...)" $name (trimPrefix "-" (trimPrefix "-" $name))) }}
{{- else if not $type }}
{{- fail (printf "extraArgs.%s: --%s is not a flag of wasm-ccm: write one of docs/flags.md (without the leading --), or remove it" $name $name) }}
{{- else if and (eq $type "bool") (not (has $text (list "1" "t" "T" "TRUE" "true" "True" "0" "f" "F" "FALSE" "false" "False"))) }}
{{- fail (printf "extraArgs.%s: %q is not a boolean: write true or false" $name $text) }}
{{- else if and (eq $type "int") (not (regexMatch "^-?[0-9]+$" $text)) }}
{{- fail (printf "extraArgs.%s: %q is not an integer: write e.g. 5" $name $text) }}
{{- else if and (eq $type "float") (not (regexMatch "^[-+]?([0-9]+\\.?[0-9]*|\\.[0-9]+)([eE][-+]?[0-9]+)?$" $text)) }}
{{- fail (printf "extraArgs.%s: %q is not a number: write e.g. 20 or 0.5" $name $text) }}
{{- else if and (eq $type "duration") (not (regexMatch "^([-+]?(([0-9]+(\\.[0-9]*)?|\\.[0-9]+)(ns|us|µs|ms|s|m|h))+|0)$" $text)) }}
{{- fail (printf "extraArgs.%s: %q is not a duration: write a Go duration with its unit, e.g. 300ms, 5s, 1m30s" $name $text) }}
{{- else if and (hasKey $known.values $name) (not (has $text (get $known.values $name))) }}
{{- fail (printf "extraArgs.%s: %q is not one of its values: write one of %s" $name $text (join ", " (get $known.values $name))) }}
{{- end }}
{{- end }}
{{- include "wasm-ccm.validateFlagRules" (dict "Values" .Values "gates" $known.featureGates) }}
{{- end }}

{{/* extraArgs the CCM refuses together with other flags (options/ccm-options.ts), and --feature-gates. */}}
{{- define "wasm-ccm.validateFlagRules" -}}
{{- $args := .Values.extraArgs }}
{{- $false := list "0" "f" "F" "FALSE" "false" "False" }}
{{- $gates := dict }}
{{- range $entry := splitList "," (printf "%v" (get $args "feature-gates" | default "")) }}
{{- $pair := splitList "=" (trim $entry) }}
{{- if and (trim $entry) (or (ne (len $pair) 2) (not (has (trim (first $pair)) $.gates)) (not (has (trim (last $pair)) (list "1" "t" "T" "TRUE" "true" "True" "0" "f" "F" "FALSE" "false" "False")))) }}
{{- fail (printf "extraArgs.feature-gates: %q is not Gate=true|false with a gate of wasm-ccm: write e.g. LoggingAlphaOptions=true (the gates: %s)" (trim $entry) (join ", " $.gates)) }}
{{- end }}
{{- if trim $entry }}{{ $_ := set $gates (trim (first $pair)) (not (has (trim (last $pair)) $false)) }}{{ end }}
{{- end }}
{{- $alpha := ternary (get $gates "LoggingAlphaOptions") (get $gates "AllAlpha" | default false) (hasKey $gates "LoggingAlphaOptions") }}
{{- range list "log-json-split-stream" "log-text-split-stream" }}
{{- if and (hasKey $args .) (not (has (printf "%v" (get $args .)) $false)) (not $alpha) }}
{{- fail (printf "extraArgs.%s: an alpha option: add feature-gates: LoggingAlphaOptions=true to extraArgs, or remove it" .) }}
{{- end }}
{{- end }}
{{- if and (hasKey $args "delegated-auth") (has (printf "%v" (get $args "delegated-auth")) $false) (not (has .Values.bindAddress (list "127.0.0.1" "::1"))) }}
{{- fail (printf "extraArgs.delegated-auth: false serves /metrics without authentication, which the CCM allows only on loopback: set bindAddress to 127.0.0.1 or ::1 (bindAddress is %s), or remove it" .Values.bindAddress) }}
{{- end }}
{{- if and .Values.leaderElection.enabled (hasKey $args "leader-elect-resource-lock") (ne (printf "%v" (get $args "leader-elect-resource-lock")) "leases") }}
{{- fail (printf "extraArgs.leader-elect-resource-lock: %q: only leases is supported: write leases, or remove it" (printf "%v" (get $args "leader-elect-resource-lock"))) }}
{{- end }}
{{- end }}
