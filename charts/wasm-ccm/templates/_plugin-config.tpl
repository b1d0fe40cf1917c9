{{/*
The plugin configuration file (--plugin-config; the repository README, "Plugin configuration") from
.Values.plugins. The chart's own source kinds become what the CCM reads: `module` the chart's module ConfigMap
through the API, `image` the file in the provider's image volume; credentials become the file of the mounted Secret.
Every other field is passed through as written, so the CCM's own validation names a bad one.
*/}}
{{- define "wasm-ccm.pluginConfig" -}}
{{- $providers := list }}
{{- range $i, $p := .Values.plugins.providers }}
{{- $out := omit $p "source" "credentials" }}
{{- $src := $p.source }}
{{- if $src.module }}
{{- if not $.Values.plugin.module }}
{{- fail (printf "plugin.module is empty, but plugins.providers[%d] (%s) reads it: give the module with --set-file plugin.module=path/to/provider.wasm" $i $p.name) }}
{{- end }}
{{- $_ := set $out "source" (dict "configMap" (dict "namespace" $.Release.Namespace "name" (include "wasm-ccm.moduleConfigMap" $) "key" $.Values.plugin.key)) }}
{{- else if $src.configMap }}
{{- $cm := $src.configMap }}
{{- $_ := set $out "source" (dict "configMap" (dict "namespace" ($cm.namespace | default $.Release.Namespace) "name" $cm.name "key" $cm.key)) }}
{{- else if $src.image }}
{{- $_ := set $out "source" (dict "file" (printf "/etc/wasm-ccm/images/%s/%s" $p.name (trimPrefix "/" $src.image.path))) }}
{{- else }}
{{- $_ := set $out "source" (dict "file" $src.file) }}
{{- end }}
{{- with $p.credentials }}
{{- if .entries }}
{{- $_ := set $out "credentials" (dict "file" (printf "%s/%s.json" (include "wasm-ccm.credentialsDir" $) $p.name)) }}
{{- else if .existingSecret }}
{{- $_ := set $out "credentials" (dict "file" (printf "%s-%s/%s" (include "wasm-ccm.credentialsDir" $) $p.name (.key | default "credentials.json"))) }}
{{- end }}
{{- end }}
{{- $providers = append $providers $out }}
{{- end }}
{{- $config := dict "providers" $providers }}
{{- with .Values.plugins.defaultProvider }}{{ $_ := set $config "defaultProvider" . }}{{ end }}
{{- with .Values.plugins.loadBalancerClasses }}{{ $_ := set $config "loadBalancerClasses" . }}{{ end }}
{{- toYaml $config }}
{{- end }}
