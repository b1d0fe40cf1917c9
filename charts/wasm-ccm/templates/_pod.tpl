{{/*
The pod template both kinds share (the DaemonSet and the Deployment of manifests/ are the same pod but for
placement and the host network).
*/}}
{{- define "wasm-ccm.defaultTolerations" -}}
# Nodes wait with this taint for a CCM to initialize them: the CCM itself must not wait for it.
- key: node.cloudprovider.kubernetes.io/uninitialized
  value: "true"
  effect: NoSchedule
- key: node-role.kubernetes.io/control-plane
  effect: NoSchedule
{{- if eq .Values.kind "DaemonSet" }}
# A node without a working CNI is NotReady: all effects, the CCM is what the node is waiting for.
- key: node.kubernetes.io/not-ready
  operator: Exists
# Nodes stay NetworkUnavailable until the route controller has created their routes.
- key: node.kubernetes.io/network-unavailable
  operator: Exists
  effect: NoSchedule
{{- else }}
# Only NoSchedule: a replica on a node that stays NotReady is still evicted and rescheduled on a healthy node.
- key: node.kubernetes.io/not-ready
  effect: NoSchedule
{{- end }}
{{- end }}

{{- define "wasm-ccm.defaultAffinity" -}}
{{- if eq .Values.kind "Deployment" }}
nodeAffinity:
  preferredDuringSchedulingIgnoredDuringExecution:
    - weight: 100
      preference:
        matchExpressions:
          - key: node-role.kubernetes.io/control-plane
            operator: Exists
# Preferred, not required: a single-node cluster must still run every replica.
podAntiAffinity:
  preferredDuringSchedulingIgnoredDuringExecution:
    - weight: 100
      podAffinityTerm:
        topologyKey: kubernetes.io/hostname
        labelSelector:
          matchLabels:
            {{- include "wasm-ccm.selectorLabels" . | nindent 12 }}
{{- end }}
{{- end }}

{{- define "wasm-ccm.probe" -}}
httpGet:
  path: {{ .path }}
  port: {{ .port }}
  scheme: HTTPS
periodSeconds: {{ .period }}
timeoutSeconds: 5
failureThreshold: {{ .failures }}
{{- end }}

{{- define "wasm-ccm.podTemplate" -}}
{{- $v := .Values }}
{{- $hostNetwork := eq (include "wasm-ccm.hostNetwork" .) "true" -}}
metadata:
  labels:
    {{- include "wasm-ccm.selectorLabels" . | nindent 4 }}
    {{- with $v.podLabels }}
    {{- toYaml . | nindent 4 }}
    {{- end }}
  annotations:
    # The plugin configuration (with the cloud config) is read once at start: a change rolls the pods. The module
    # ConfigMap and the credentials are not here on purpose: the CCM swaps a new module and re-reads the credentials
    # without a restart.
    checksum/plugin-config: {{ include "wasm-ccm.pluginConfig" . | sha256sum }}
    {{- with $v.podAnnotations }}
    {{- toYaml . | nindent 4 }}
    {{- end }}
spec:
  serviceAccountName: {{ $v.serviceAccount.name }}
  {{- with $v.priorityClassName }}
  priorityClassName: {{ . }}
  {{- end }}
  {{- if $hostNetwork }}
  # On the node's network the CCM needs only the apiserver and the cloud API, not the pod network (which may wait
  # for the CCM); names resolve with the node's resolver, as cluster DNS may not run yet.
  hostNetwork: true
  dnsPolicy: Default
  {{- end }}
  terminationGracePeriodSeconds: {{ $v.terminationGracePeriodSeconds }}
  {{- with $v.image.pullSecrets }}
  imagePullSecrets:
    {{- range . }}
    - name: {{ . }}
    {{- end }}
  {{- end }}
  securityContext:
    {{- toYaml $v.podSecurityContext | nindent 4 }}
  {{- $nodeSelector := $v.nodeSelector }}
  {{- if and (kindIs "invalid" $nodeSelector) (eq $v.kind "DaemonSet") }}
  {{- $nodeSelector = dict "node-role.kubernetes.io/control-plane" "" }}
  {{- end }}
  {{- with $nodeSelector }}
  nodeSelector:
    {{- toYaml . | nindent 4 }}
  {{- end }}
  {{- if kindIs "invalid" $v.affinity }}
  {{- with include "wasm-ccm.defaultAffinity" . }}
  affinity:
    {{- . | nindent 4 }}
  {{- end }}
  {{- else if $v.affinity }}
  affinity:
    {{- toYaml $v.affinity | nindent 4 }}
  {{- end }}
  tolerations:
    {{- if kindIs "invalid" $v.tolerations }}
    {{- include "wasm-ccm.defaultTolerations" . | nindent 4 }}
    {{- else }}
    {{- toYaml $v.tolerations | nindent 4 }}
    {{- end }}
  containers:
    - name: cloud-controller-manager
      image: {{ include "wasm-ccm.image" . }}
      imagePullPolicy: {{ $v.image.pullPolicy }}
      args:
        {{- include "wasm-ccm.args" . | nindent 8 }}
      env:
        - name: NODE_OPTIONS
          value: {{ $v.nodeOptions | quote }}
        {{- with $v.extraEnv }}
        {{- toYaml . | nindent 8 }}
        {{- end }}
      ports:
        - name: https
          containerPort: {{ $v.securePort }}
          protocol: TCP
      # The health paths need no token (--authorization-always-allow-paths). The port opens once the apiserver
      # answered and the plugin initialized: the startup probe allows 2 min for that.
      startupProbe:
        {{- include "wasm-ccm.probe" (dict "path" "/livez" "port" $v.securePort "period" 5 "failures" 24) | nindent 8 }}
      livenessProbe:
        {{- include "wasm-ccm.probe" (dict "path" "/livez" "port" $v.securePort "period" 10 "failures" 3) | nindent 8 }}
      # Ready = a plugin instance runs; a standby is ready too (it can lead at any moment).
      readinessProbe:
        {{- include "wasm-ccm.probe" (dict "path" "/readyz" "port" $v.securePort "period" 10 "failures" 3) | nindent 8 }}
      resources:
        {{- toYaml $v.resources | nindent 8 }}
      securityContext:
        {{- toYaml $v.securityContext | nindent 8 }}
      volumeMounts:
        {{- include "wasm-ccm.volumeMounts" . | nindent 8 }}
  volumes:
    {{- include "wasm-ccm.volumes" . | nindent 4 }}
{{- end }}
