{{/*
The plugin checks of _validate.tpl: the module the chart is given, each provider, and the loadBalancerClasses, as
the CCM checks them at start (host/src/plugin/config/parse.ts, host/src/plugin/module).
*/}}

{{/* True when the module bytes are gzip (the CCM decompresses a module with the gzip magic whatever its key). */}}
{{- define "wasm-ccm.moduleIsGzip" -}}
{{- hasPrefix "\x1f\x8b" .Values.plugin.module }}
{{- end }}

{{/* plugin.module: a Wasm module (or gzip for a .gz key) and its signature's shape. */}}
{{- define "wasm-ccm.validateModule" -}}
{{- $module := .Values.plugin.module }}
{{- $key := .Values.plugin.key }}
{{- if $module }}
{{- $gzip := eq (include "wasm-ccm.moduleIsGzip" .) "true" }}
{{- if and (hasSuffix ".gz" $key) (not $gzip) }}
{{- fail (printf "plugin.module: plugin.key %q ends in .gz, but the module does not start with the gzip magic 1f 8b: give the gzip file (gzip -9 -k provider.wasm, then --set-file plugin.module=provider.wasm.gz), or a key without .gz for a module as is" $key) }}
{{- end }}
{{- if and (not $gzip) (not (hasPrefix "\x00asm\x01\x00\x00\x00" $module)) }}
{{- fail (printf "plugin.module: the file given is not a WebAssembly module (it does not start with \\0asm version 1; it starts with %q): give the provider's .wasm build with --set-file plugin.module=path/to/provider.wasm" (trunc 8 $module)) }}
{{- end }}
{{- end }}
{{- with .Values.plugin.signature }}
{{- include "wasm-ccm.checkSignature" (dict "path" "plugin.signature" "value" .) }}
{{- end }}
{{- end }}

{{/* Fails unless .value is a base64 Ed25519 signature (64 bytes; whitespace ignored, as the CCM does). */}}
{{- define "wasm-ccm.checkSignature" -}}
{{- if not (regexMatch "^[A-Za-z0-9+/]{86}==$" (regexReplaceAll "\\s+" .value "")) }}
{{- fail (printf "%s: not a base64 Ed25519 signature (64 bytes, 88 base64 characters): give the detached signature, e.g. openssl pkeyutl -sign -rawin -inkey key.pem -in provider.wasm | base64 -w0" .path) }}
{{- end }}
{{- end }}

{{/* Fails unless .value is an Ed25519 public key in PEM: the 12-byte SPKI header of Ed25519, then 32 bytes. */}}
{{- define "wasm-ccm.checkPublicKey" -}}
{{- $body := regexReplaceAll "\\s+" (regexReplaceAll "-----(BEGIN|END) PUBLIC KEY-----" .value "") "" }}
{{- if not (and (contains "-----BEGIN PUBLIC KEY-----" .value) (regexMatch "^MCowBQYDK2VwAyEA[A-Za-z0-9+/]{43}=$" $body)) }}
{{- fail (printf "%s: not an Ed25519 public key in PEM (-----BEGIN PUBLIC KEY----- ...): give the key the module is signed with, e.g. openssl pkey -in key.pem -pubout" .path) }}
{{- end }}
{{- end }}

{{/* Fails when a host of .hosts (at .path) has a port out of 1..65535. */}}
{{- define "wasm-ccm.checkHostPorts" -}}
{{- range $j, $host := .hosts }}
{{- $port := regexFind "[0-9]+$" (regexFind ":[0-9]+$" $host) }}
{{- if and $port (or (lt (atoi $port) 1) (gt (atoi $port) 65535)) }}
{{- fail (printf "%s[%d]: %q has the port %s: write host or host:port with a port from 1 to 65535" $.path $j $host $port) }}
{{- end }}
{{- end }}
{{- end }}

{{/* Each provider on its own, and the names they share. */}}
{{- define "wasm-ccm.validateProviders" -}}
{{- $names := dict }}
{{- range $i, $p := .Values.plugins.providers }}
{{- $at := printf "plugins.providers[%d]" $i }}
{{- if hasKey $names $p.name }}
{{- fail (printf "%s.name: %q is already the name of plugins.providers[%v]: give each provider a name of its own" $at $p.name (get $names $p.name)) }}
{{- end }}
{{- $_ := set $names $p.name $i }}
{{- include "wasm-ccm.validateProviderFields" (dict "at" $at "p" $p "root" $) }}
{{- include "wasm-ccm.validateProviderLimits" (dict "at" $at "p" $p "defaults" $.Values.pluginLimits) }}
{{- include "wasm-ccm.validateProviderModule" (dict "at" $at "p" $p "root" $) }}
{{- end }}
{{- end }}

{{/* Fields that exclude or need one another, hosts and credentials. */}}
{{- define "wasm-ccm.validateProviderFields" -}}
{{- $at := .at }}
{{- $p := .p }}
{{- range list (list "publicKey" "publicKeyFile") (list "cloudConfig" "cloudConfigFile") }}
{{- if and (hasKey $p (first .)) (hasKey $p (last .)) }}
{{- fail (printf "%s: give %s or %s, not both" $at (first .) (last .)) }}
{{- end }}
{{- end }}
{{- if and (hasKey $p "signature") (not (or $p.publicKey $p.publicKeyFile)) }}
{{- fail (printf "%s.signature: there is no publicKey or publicKeyFile to check it against: add the public key, or remove the signature" $at) }}
{{- end }}
{{- with $p.publicKey }}
{{- include "wasm-ccm.checkPublicKey" (dict "path" (printf "%s.publicKey" $at) "value" .) }}
{{- end }}
{{- with $p.signature }}
{{- include "wasm-ccm.checkSignature" (dict "path" (printf "%s.signature" $at) "value" .) }}
{{- end }}
{{- include "wasm-ccm.checkHostPorts" (dict "path" (printf "%s.allowedHosts" $at) "hosts" ($p.allowedHosts | default list)) }}
{{- $entries := dict }}
{{- range $j, $entry := (($p.credentials | default dict).entries | default list) }}
{{- $path := printf "%s.credentials.entries[%d]" $at $j }}
{{- if hasKey $entries $entry.name }}
{{- fail (printf "%s.name: %q is already the name of entries[%v]: give each entry a name of its own" $path $entry.name (get $entries $entry.name)) }}
{{- end }}
{{- $_ := set $entries $entry.name $j }}
{{- include "wasm-ccm.checkHostPorts" (dict "path" (printf "%s.hosts" $path) "hosts" $entry.hosts) }}
{{- if $entry.awsSigV4 }}
{{- include "wasm-ccm.checkAwsSigV4" (dict "path" $path "entry" $entry) }}
{{- end }}
{{- range $header, $_ := $entry.headers }}
{{- if not (regexMatch "^[!#$%&'*+\\-.^_`|~0-9A-Za-z]+$" $header) }}
{{- fail (printf "%s.headers: %q is not an HTTP header name: write a token such as X-Api-Key" $path $header) }}
{{- end }}
{{- end }}
{{- if $entry.insecure }}
{{- range $entry.hosts }}
{{- if not (regexMatch "^(127(\\.(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])){3}|\\[::1\\]|localhost)(:[0-9]+)?$" .) }}
{{- fail (printf "%s.insecure: %q is not a loopback address (127.0.0.0/8, [::1] or localhost), and a credential for any other host goes over https only: remove insecure and serve the host over https" $path .) }}
{{- end }}
{{- end }}
{{- end }}
{{- end }}
{{- end }}

{{/* limits within the CCM's ranges (plugin/config/rules.ts), poolMinSize within poolSize. */}}
{{- define "wasm-ccm.validateProviderLimits" -}}
{{- $at := printf "%s.limits" .at }}
{{- $limits := .p.limits | default dict }}
{{- with $limits.callTimeout }}
{{- include "wasm-ccm.checkDuration" (dict "path" (printf "%s.callTimeout" $at) "value" . "min" 1 "max" 600000 "range" "1ms to 10m" "example" "10s") }}
{{- end }}
{{- with $limits.poolIdleTimeout }}
{{- include "wasm-ccm.checkDuration" (dict "path" (printf "%s.poolIdleTimeout" $at) "value" . "min" 1000 "max" 86400000 "range" "1s to 24h" "example" "60s") }}
{{- end }}
{{- $poolSize := int (hasKey $limits "poolSize" | ternary $limits.poolSize .defaults.poolSize) }}
{{- if and (hasKey $limits "poolMinSize") (gt $poolSize 0) (gt (int $limits.poolMinSize) $poolSize) }}
{{- fail (printf "%s.poolMinSize: %v is above the provider's poolSize (%d): write a poolMinSize of at most %d, or raise poolSize" $at $limits.poolMinSize $poolSize $poolSize) }}
{{- end }}
{{- end }}

{{/*
A provider reading plugin.module: the module's pin and signature as the CCM will check them. A pin is over the
decompressed module, which a template cannot inflate: a gzip module's pin is left to the CCM.
*/}}
{{- define "wasm-ccm.validateProviderModule" -}}
{{- $root := .root }}
{{- $p := .p }}
{{- $module := $root.Values.plugin.module }}
{{- if and $p.source.module $module }}
{{- if and $p.sha256 (ne (include "wasm-ccm.moduleIsGzip" $root) "true") }}
{{- $pin := lower (trimPrefix "sha256:" $p.sha256) }}
{{- $digest := sha256sum $module }}
{{- if ne $pin $digest }}
{{- fail (printf "%s.sha256: the pin %s does not match plugin.module, whose sha256 is %s: pin the module given (sha256sum provider.wasm), or give the module pinned" .at $pin $digest) }}
{{- end }}
{{- end }}
{{- if and $p.publicKey (not $p.signature) (not $root.Values.plugin.signature) }}
{{- fail (printf "%s.publicKey: the module must be signed by this key, but plugin.signature is empty: give the module's detached signature with --set-file plugin.signature=provider.wasm.sig" .at) }}
{{- end }}
{{- end }}
{{- end }}

{{/* defaultProvider and loadBalancerClasses name providers that exist and serve load balancers. */}}
{{- define "wasm-ccm.validateClasses" -}}
{{- $plugins := .Values.plugins }}
{{- $byName := dict }}
{{- range $plugins.providers }}{{ $_ := set $byName .name . }}{{ end }}
{{- $names := keys $byName | sortAlpha | join ", " }}
{{- $default := $plugins.defaultProvider }}
{{- if $default }}
{{- if not (hasKey $byName $default) }}
{{- fail (printf "plugins.defaultProvider: no provider is named %q: write one of %s" $default $names) }}
{{- end }}
{{- else if gt (len $plugins.providers) 1 }}
{{- fail (printf "plugins.defaultProvider: required with several providers: write the one that serves nodes, routes and Services without a loadBalancerClass (one of %s)" $names) }}
{{- else }}
{{- $default = (first $plugins.providers).name }}
{{- end }}
{{- range $class, $name := $plugins.loadBalancerClasses }}
{{- if or (gt (len $class) 253) (not (regexMatch "^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?(/.*)?$" $class)) }}
{{- fail (printf "plugins.loadBalancerClasses: %q is not a loadBalancerClass: write a label-style name such as example.com/internal" $class) }}
{{- end }}
{{- $provider := get $byName $name }}
{{- if not $provider }}
{{- fail (printf "plugins.loadBalancerClasses.%s: no provider is named %q: write one of %s" $class $name $names) }}
{{- end }}
{{- if and $provider.capabilities (not (has "loadBalancer" $provider.capabilities)) }}
{{- fail (printf "plugins.loadBalancerClasses.%s: provider %q does not serve loadBalancer (its capabilities: %s): route the class to a provider that does, or add loadBalancer to its capabilities" $class $name (join ", " $provider.capabilities)) }}
{{- end }}
{{- end }}
{{- $serving := get $byName $default }}
{{- if and $plugins.loadBalancerClasses $serving.capabilities (not (has "loadBalancer" $serving.capabilities)) }}
{{- fail (printf "plugins.defaultProvider: provider %q must serve loadBalancer when loadBalancerClasses are routed (one service controller serves every class and the Services without one): add loadBalancer to its capabilities, or make another provider the default" $default) }}
{{- end }}
{{- end }}
