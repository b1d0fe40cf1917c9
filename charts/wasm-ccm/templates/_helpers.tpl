{{/* Names, labels and the values the templates derive from several values. */}}

{{- define "wasm-ccm.name" -}}
{{- .Chart.Name | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* The release's name, or <release>-wasm-ccm when the release name does not contain the chart's. */}}
{{- define "wasm-ccm.fullname" -}}
{{- if contains .Chart.Name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}

{{- define "wasm-ccm.selectorLabels" -}}
app.kubernetes.io/name: {{ include "wasm-ccm.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/component: cloud-controller-manager
{{- end }}

{{- define "wasm-ccm.labels" -}}
{{ include "wasm-ccm.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
{{- end }}

{{- define "wasm-ccm.image" -}}
{{- printf "%s:%s" .Values.image.repository (.Values.image.tag | default .Chart.AppVersion) }}
{{- end }}

{{/* The module ConfigMap (plugin.module) and the plugin configuration ConfigMap. */}}
{{- define "wasm-ccm.moduleConfigMap" -}}
{{- printf "%s-plugin" (include "wasm-ccm.fullname" .) | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "wasm-ccm.pluginConfigMap" -}}
{{- printf "%s-plugin-config" (include "wasm-ccm.fullname" .) | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "wasm-ccm.credentialsSecret" -}}
{{- printf "%s-credentials" (include "wasm-ccm.fullname" .) | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "wasm-ccm.leaseNamespace" -}}
{{- .Values.leaderElection.resourceNamespace | default .Release.Namespace }}
{{- end }}

{{/* "true" when the pod runs on the node's network: hostNetwork, or null for the kind's default. */}}
{{- define "wasm-ccm.hostNetwork" -}}
{{- if kindIs "bool" .Values.hostNetwork }}{{ .Values.hostNetwork }}{{ else }}{{ eq .Values.kind "DaemonSet" }}{{ end }}
{{- end }}

{{/* Where the pod finds its files. */}}
{{- define "wasm-ccm.configDir" -}}/etc/wasm-ccm/config{{- end }}
{{- define "wasm-ccm.credentialsDir" -}}/etc/wasm-ccm/credentials{{- end }}
{{- define "wasm-ccm.tlsDir" -}}/etc/wasm-ccm/tls{{- end }}

{{/* "true" when some provider's credentials are entries the chart puts into its own Secret. */}}
{{- define "wasm-ccm.createsCredentials" -}}
{{- $found := false }}
{{- range .Values.plugins.providers }}
{{- if and .credentials .credentials.entries }}{{ $found = true }}{{ end }}
{{- end }}
{{- $found }}
{{- end }}

{{/* Namespaces holding ConfigMaps the CCM reads through the API (one Role each), as a JSON list. */}}
{{- define "wasm-ccm.configMapNamespaces" -}}
{{- $namespaces := list }}
{{- range .Values.plugins.providers }}
{{- if .source.module }}
{{- $namespaces = append $namespaces $.Release.Namespace }}
{{- else if .source.configMap }}
{{- $namespaces = append $namespaces (.source.configMap.namespace | default $.Release.Namespace) }}
{{- end }}
{{- end }}
{{- $namespaces | uniq | sortAlpha | toJson }}
{{- end }}

{{/*
"true" when the route controller runs (the CCM then needs --cluster-cidr): as --controllers reads the list, the
first entry naming it (or its upstream alias node-route-controller) decides, else `*`.
*/}}
{{- define "wasm-ccm.routesRun" -}}
{{- $enabled := has "*" .Values.controllers }}
{{- $decided := false }}
{{- range .Values.controllers }}
{{- if and (not $decided) (has (trimPrefix "-" .) (list "route" "node-route-controller")) }}
{{- $enabled = not (hasPrefix "-" .) }}
{{- $decided = true }}
{{- end }}
{{- end }}
{{- and .Values.configureCloudRoutes $enabled }}
{{- end }}

{{/*
A provider's keys in the chart's credentials Secret, as JSON: <provider>.json, the credentials file, and for an
awsSigV4 entry with an access key, the key's parts as files (the CCM reads an AWS key from files, relative to the
credentials file) which the entry then names.
*/}}
{{- define "wasm-ccm.credentialFiles" -}}
{{- $files := dict }}
{{- $entries := list }}
{{- range $j, $e := .credentials.entries }}
{{- $out := deepCopy $e }}
{{- if and $e.awsSigV4 $e.awsSigV4.accessKeyId }}
{{- $aws := omit $e.awsSigV4 "accessKeyId" "secretAccessKey" "sessionToken" }}
{{- $prefix := printf "%s-%d-" $.name $j }}
{{- $_ := set $files (print $prefix "access-key-id") $e.awsSigV4.accessKeyId }}
{{- $_ := set $files (print $prefix "secret-access-key") $e.awsSigV4.secretAccessKey }}
{{- $_ := set $aws "accessKeyIdFile" (print $prefix "access-key-id") }}
{{- $_ := set $aws "secretAccessKeyFile" (print $prefix "secret-access-key") }}
{{- with $e.awsSigV4.sessionToken }}
{{- $_ := set $files (print $prefix "session-token") . }}
{{- $_ := set $aws "sessionTokenFile" (print $prefix "session-token") }}
{{- end }}
{{- $_ := set $out "awsSigV4" $aws }}
{{- end }}
{{- $entries = append $entries $out }}
{{- end }}
{{- $_ := set $files (printf "%s.json" .name) (dict "credentials" $entries | toJson) }}
{{- toJson $files }}
{{- end }}
