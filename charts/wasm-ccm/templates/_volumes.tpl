{{/*
What the pod mounts: the plugin configuration, the credentials Secrets, one image volume per provider whose source
is an image, /tmp, and extraVolumes. Whole directories, never subPath: the kubelet updates ConfigMap and Secret
volumes in place only without subPath (the credentials file is re-read every 10 s: rotation needs no restart).
*/}}
{{- define "wasm-ccm.volumeMounts" -}}
- name: plugin-config
  mountPath: {{ include "wasm-ccm.configDir" . }}
  readOnly: true
{{- if eq (include "wasm-ccm.createsCredentials" .) "true" }}
- name: credentials
  mountPath: {{ include "wasm-ccm.credentialsDir" . }}
  readOnly: true
{{- end }}
{{- range $i, $p := .Values.plugins.providers }}
{{- if and $p.credentials $p.credentials.existingSecret }}
- name: credentials-{{ $i }}
  mountPath: {{ include "wasm-ccm.credentialsDir" $ }}-{{ $p.name }}
  readOnly: true
{{- end }}
{{- if $p.source.image }}
- name: plugin-image-{{ $i }}
  mountPath: /etc/wasm-ccm/images/{{ $p.name }}
  readOnly: true
{{- end }}
{{- end }}
{{- if .Values.tls.existingSecret }}
- name: tls
  mountPath: {{ include "wasm-ccm.tlsDir" . }}
  readOnly: true
{{- end }}
# The root file system is read-only and the CCM writes no files; /tmp is scratch space for diagnostics.
- name: tmp
  mountPath: /tmp
{{- with .Values.extraVolumeMounts }}
{{ toYaml . }}
{{- end }}
{{- end }}

{{- define "wasm-ccm.volumes" -}}
- name: plugin-config
  configMap:
    name: {{ include "wasm-ccm.pluginConfigMap" . }}
{{- if eq (include "wasm-ccm.createsCredentials" .) "true" }}
- name: credentials
  secret:
    secretName: {{ include "wasm-ccm.credentialsSecret" . }}
    defaultMode: 288 # = 0440
{{- end }}
{{- range $i, $p := .Values.plugins.providers }}
{{- if and $p.credentials $p.credentials.existingSecret }}
- name: credentials-{{ $i }}
  secret:
    secretName: {{ $p.credentials.existingSecret }}
    defaultMode: 288 # = 0440
{{- end }}
{{- with $p.source.image }}
- name: plugin-image-{{ $i }}
  image:
    reference: {{ .reference }}
    pullPolicy: {{ .pullPolicy | default "IfNotPresent" }}
{{- end }}
{{- end }}
{{- with .Values.tls.existingSecret }}
- name: tls
  secret:
    secretName: {{ . }}
    defaultMode: 288 # = 0440
{{- end }}
- name: tmp
  emptyDir:
    sizeLimit: 64Mi
{{- with .Values.extraVolumes }}
{{ toYaml . }}
{{- end }}
{{- end }}
