{{/*
The CCM's command line (the repository README, "Flags"), one `--name=value` per item, from the values; then
extraArgs. A flag the chart sets from another value is refused in extraArgs (naming that value) rather than given
twice.
*/}}
{{/* The flags the chart sets, each with the value it comes from (as JSON). */}}
{{- define "wasm-ccm.managedFlags" -}}
{{- dict
  "cloud-provider" "cloudProvider" "plugin-config" "plugins" "plugin" "plugins.providers[].source"
  "plugin-sha256" "plugins.providers[].sha256" "plugin-allowed-hosts" "plugins.providers[].allowedHosts"
  "plugin-credentials" "plugins.providers[].credentials" "cloud-config" "plugins.providers[].cloudConfig"
  "plugin-call-timeout" "pluginLimits.callTimeout" "plugin-memory-limit-mb" "pluginLimits.memoryLimitMB"
  "plugin-pool-size" "pluginLimits.poolSize" "cluster-name" "clusterName" "cluster-cidr" "clusterCIDR"
  "configure-cloud-routes" "configureCloudRoutes" "allocate-node-cidrs" "allocateNodeCIDRs"
  "controllers" "controllers" "concurrent-service-syncs" "concurrentServiceSyncs"
  "concurrent-node-syncs" "concurrentNodeSyncs" "kube-api-qps" "kubeAPIQPS" "kube-api-burst" "kubeAPIBurst"
  "leader-elect" "leaderElection.enabled" "leader-elect-resource-name" "leaderElection.resourceName"
  "leader-elect-resource-namespace" "leaderElection.resourceNamespace"
  "leader-elect-lease-duration" "leaderElection.leaseDuration"
  "leader-elect-renew-deadline" "leaderElection.renewDeadline"
  "leader-elect-retry-period" "leaderElection.retryPeriod" "secure-port" "securePort"
  "bind-address" "bindAddress" "v" "verbosity" "tls-cert-file" "tls.existingSecret"
  "use-service-account-credentials" "useServiceAccountCredentials"
  "tls-private-key-file" "tls.existingSecret" | toJson }}
{{- end }}

{{- define "wasm-ccm.args" -}}
{{- $v := .Values }}
{{- if and (eq (include "wasm-ccm.routesRun" .) "true") (not $v.clusterCIDR) }}
{{- fail "clusterCIDR is empty, but the route controller runs (configureCloudRoutes with the route controller enabled): set clusterCIDR to the pods' CIDR, or configureCloudRoutes=false" }}
{{- end }}
{{- if and (not $v.leaderElection.enabled) (or (eq $v.kind "DaemonSet") (gt (int $v.replicas) 1)) }}
{{- fail (printf "leaderElection.enabled=false needs a single pod: kind=Deployment with replicas=1 (kind=%s, replicas=%v)" $v.kind $v.replicas) }}
{{- end -}}
- --cloud-provider={{ $v.cloudProvider }}
- --plugin-config={{ include "wasm-ccm.configDir" . }}/plugins.yaml
- --plugin-call-timeout={{ $v.pluginLimits.callTimeout }}
- --plugin-memory-limit-mb={{ $v.pluginLimits.memoryLimitMB }}
- --plugin-pool-size={{ $v.pluginLimits.poolSize }}
- {{ printf "--cluster-name=%s" $v.clusterName | quote }}
{{- with $v.clusterCIDR }}
- {{ printf "--cluster-cidr=%s" . | quote }}
{{- end }}
- --configure-cloud-routes={{ $v.configureCloudRoutes }}
- --allocate-node-cidrs={{ $v.allocateNodeCIDRs }}
- {{ printf "--controllers=%s" (join "," $v.controllers) | quote }}
- --concurrent-service-syncs={{ $v.concurrentServiceSyncs }}
- --concurrent-node-syncs={{ $v.concurrentNodeSyncs }}
- --kube-api-qps={{ $v.kubeAPIQPS }}
- --kube-api-burst={{ $v.kubeAPIBurst }}
- --leader-elect={{ $v.leaderElection.enabled }}
{{- if $v.leaderElection.enabled }}
- {{ printf "--leader-elect-resource-name=%s" $v.leaderElection.resourceName | quote }}
- --leader-elect-resource-namespace={{ include "wasm-ccm.leaseNamespace" . }}
- --leader-elect-lease-duration={{ $v.leaderElection.leaseDuration }}
- --leader-elect-renew-deadline={{ $v.leaderElection.renewDeadline }}
- --leader-elect-retry-period={{ $v.leaderElection.retryPeriod }}
{{- end }}
- --secure-port={{ $v.securePort }}
- {{ printf "--bind-address=%s" $v.bindAddress | quote }}
{{- if $v.tls.existingSecret }}
- --tls-cert-file={{ include "wasm-ccm.tlsDir" . }}/tls.crt
- --tls-private-key-file={{ include "wasm-ccm.tlsDir" . }}/tls.key
{{- end }}
- --v={{ $v.verbosity }}
{{- if $v.useServiceAccountCredentials }}
- --use-service-account-credentials=true
{{- end }}
{{- $managed := include "wasm-ccm.managedFlags" . | fromJson }}
{{- range $name, $value := $v.extraArgs }}
{{- with get $managed $name }}
{{- fail (printf "extraArgs.%s: the chart sets --%s from the value %s; set that instead" $name $name .) }}
{{- end }}
- {{ printf "--%s=%v" $name $value | quote }}
{{- end }}
{{- end }}
