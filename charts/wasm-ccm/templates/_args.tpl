{{/*
The CCM's command line (the repository README, "Flags"), one `--name=value` per item, from the values; then
extraArgs. A flag the chart sets from another value is refused in extraArgs rather than given twice.
*/}}
{{- define "wasm-ccm.managedFlags" -}}
{{- list "cloud-provider" "plugin-config" "plugin" "plugin-sha256" "plugin-allowed-hosts" "plugin-credentials"
  "cloud-config" "plugin-call-timeout" "plugin-memory-limit-mb" "plugin-pool-size" "cluster-name" "cluster-cidr"
  "configure-cloud-routes" "allocate-node-cidrs" "controllers" "concurrent-service-syncs" "concurrent-node-syncs"
  "kube-api-qps" "kube-api-burst" "leader-elect" "leader-elect-resource-name" "leader-elect-resource-namespace"
  "leader-elect-lease-duration" "leader-elect-renew-deadline" "leader-elect-retry-period" "secure-port"
  "bind-address" "v" | toJson }}
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
- --v={{ $v.verbosity }}
{{- $managed := include "wasm-ccm.managedFlags" . | fromJsonArray }}
{{- range $name, $value := $v.extraArgs }}
{{- if has $name $managed }}
{{- fail (printf "extraArgs.%s: the chart sets --%s from its own value (see README.md, Values); set that value instead" $name $name) }}
{{- end }}
- {{ printf "--%s=%v" $name $value | quote }}
{{- end }}
{{- end }}
