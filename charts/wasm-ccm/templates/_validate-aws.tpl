{{/*
An awsSigV4 credentials entry as the CCM checks it at start (host/src/plugin/broker/aws-sigv4-entry.ts and
aws-credential-settings.ts): an access key or one source of the AWS SDKs' chain, the fields each source takes, a
signing name for every host that is not <service>.<region>.amazonaws.com, and the entry's region for those that are.
*/}}
{{- define "wasm-ccm.checkAwsSigV4" -}}
{{- $at := printf "%s.awsSigV4" .path }}
{{- $aws := .entry.awsSigV4 }}
{{- $hasKey := hasKey $aws "accessKeyId" }}
{{- $source := $aws.source | default ($hasKey | ternary "static" "chain") }}
{{- if and $hasKey (ne $source "static") }}
{{- fail (printf "%s: accessKeyId and secretAccessKey are for source static (or no source), not %s: remove the key, or the source" $at $source) }}
{{- end }}
{{- if and (eq $source "static") (not $hasKey) }}
{{- fail (printf "%s.source: static needs accessKeyId and secretAccessKey (or name another source: chain, environment, webIdentity, container, instanceProfile)" $at) }}
{{- end }}
{{- range list "roleARN" "webIdentityTokenFile" "roleSessionName" "stsEndpoint" }}
{{- if and (hasKey $aws .) (not (has $source (list "chain" "webIdentity"))) }}
{{- fail (printf "%s.%s is for source webIdentity (or chain), not %s" $at . $source) }}
{{- end }}
{{- end }}
{{- if and (hasKey $aws "instanceMetadataEndpoint") (not (has $source (list "chain" "instanceProfile"))) }}
{{- fail (printf "%s.instanceMetadataEndpoint is for source instanceProfile (or chain), not %s" $at $source) }}
{{- end }}
{{- $loopback := "^(127(\\.[0-9]{1,3}){3}|\\[::1\\]|localhost)(:[0-9]+)?/?$" }}
{{- with $aws.stsEndpoint }}
{{- if and (hasPrefix "http://" .) (not (and $.entry.insecure (regexMatch $loopback (trimPrefix "http://" .)))) }}
{{- fail (printf "%s.stsEndpoint: %q must be https (plain http only with insecure: true, to a loopback host): the web identity token goes to STS in the body" $at .) }}
{{- end }}
{{- end }}
{{- with $aws.instanceMetadataEndpoint }}
{{- $host := trimPrefix "http://" . }}
{{- if and (hasPrefix "http://" .) (not (regexMatch $loopback $host)) (not (regexMatch "^(169\\.254\\.169\\.254|\\[fd00:ec2::254\\])(:[0-9]+)?/?$" $host)) }}
{{- fail (printf "%s.instanceMetadataEndpoint: %q: plain http only to the instance metadata service (169.254.169.254, [fd00:ec2::254]) or a loopback host" $at .) }}
{{- end }}
{{- end }}
{{- range .entry.hosts }}
{{- $name := lower (regexReplaceAll ":[0-9]+$" . "") }}
{{- $amazon := regexFindAll "^[a-z0-9-]+\\.(([a-z0-9-]+)\\.)?amazonaws\\.com(\\.cn)?$" $name 1 }}
{{- if not $amazon }}
{{- if not $aws.service }}
{{- fail (printf "%s.service is required: host %q is not <service>.<region>.amazonaws.com (write the signing name, such as ec2)" $at .) }}
{{- end }}
{{- else }}
{{- $parts := splitList "." (regexReplaceAll "\\.amazonaws\\.com(\\.cn)?$" $name "") }}
{{- if and (eq (len $parts) 2) (ne (index $parts 1) $aws.region) }}
{{- fail (printf "%s: host %q is in region %s, not awsSigV4.region %s" $.path . (index $parts 1) $aws.region) }}
{{- end }}
{{- end }}
{{- end }}
{{- end }}
