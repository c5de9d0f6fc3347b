{{/* Names, labels and the checks every template shares. */}}

{{- define "gateway-keys.name" -}}
{{- .Chart.Name | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "gateway-keys.fullname" -}}
{{- if contains .Chart.Name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}

{{- define "gateway-keys.selectorLabels" -}}
app.kubernetes.io/name: {{ include "gateway-keys.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{- define "gateway-keys.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
{{ include "gateway-keys.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end }}

{{- define "gateway-keys.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "gateway-keys.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{/* Whether the gateway uses PostgreSQL (else SQLite on the data volume). */}}
{{- define "gateway-keys.postgres" -}}
{{- if or .Values.database.existingSecret .Values.database.url }}true{{ end }}
{{- end }}

{{- define "gateway-keys.databaseSecret" -}}
{{- default (printf "%s-database" (include "gateway-keys.fullname" .)) .Values.database.existingSecret }}
{{- end }}

{{- define "gateway-keys.encryptionKeySecret" -}}
{{- default (printf "%s-encryption-key" (include "gateway-keys.fullname" .)) .Values.encryptionKey.existingSecret }}
{{- end }}

{{- define "gateway-keys.hasEncryptionKey" -}}
{{- if or .Values.encryptionKey.existingSecret .Values.encryptionKey.value }}true{{ end }}
{{- end }}

{{- define "gateway-keys.upstreamConfigMap" -}}
{{- default (printf "%s-upstream" (include "gateway-keys.fullname" .)) .Values.upstream.existingConfigMap }}
{{- end }}

{{- define "gateway-keys.hasUpstream" -}}
{{- if or .Values.upstream.existingConfigMap .Values.upstream.config }}true{{ end }}
{{- end }}

{{/* The pod's whole grace period: the preStop wait, the drain, and 5 s to close the database and exit. */}}
{{- define "gateway-keys.gracePeriod" -}}
{{- add (int .Values.gateway.preStopSeconds) (int (ceil .Values.gateway.drainTimeoutSeconds)) 5 }}
{{- end }}

{{/* Settings that cannot work together fail the render, saying what to change. */}}
{{- define "gateway-keys.validate" -}}
{{- if and (gt (int .Values.replicaCount) 1) (not (include "gateway-keys.postgres" .)) }}
{{- fail "replicaCount > 1 needs PostgreSQL: set database.existingSecret (or database.url); SQLite serves one process only" }}
{{- end }}
{{- if and (include "gateway-keys.postgres" .) (not (include "gateway-keys.hasEncryptionKey" .)) }}
{{- fail "PostgreSQL needs one encryption key for every replica: set encryptionKey.existingSecret (or encryptionKey.value, e.g. `openssl rand -base64 32`)" }}
{{- end }}
{{- if and .Values.database.existingSecret .Values.database.url }}
{{- fail "database.existingSecret and database.url name two databases: give one" }}
{{- end }}
{{- if and .Values.encryptionKey.existingSecret .Values.encryptionKey.value }}
{{- fail "encryptionKey.existingSecret and encryptionKey.value name two keys: give one" }}
{{- end }}
{{- if and .Values.upstream.existingConfigMap .Values.upstream.config }}
{{- fail "upstream.existingConfigMap and upstream.config name two configs: give one" }}
{{- end }}
{{- if eq (int .Values.gateway.port) (int .Values.gateway.metricsPort) }}
{{- fail "gateway.port and gateway.metricsPort must differ: the metrics listener is separate" }}
{{- end }}
{{- end }}
