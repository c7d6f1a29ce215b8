{{/* Names and labels, as `helm create` lays them out. */}}
{{- define "inferd.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "inferd.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{- define "inferd.selectorLabels" -}}
app.kubernetes.io/name: {{ include "inferd.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{- define "inferd.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{ include "inferd.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end }}

{{- define "inferd.claimName" -}}
{{- if .Values.modelRepository.pvc.create }}
{{- printf "%s-models" (include "inferd.fullname" .) }}
{{- else }}
{{- required "modelRepository.pvc.claimName: name a claim, or set modelRepository.pvc.create" .Values.modelRepository.pvc.claimName }}
{{- end }}
{{- end }}

{{/* The --model-repository argument. */}}
{{- define "inferd.modelRepository" -}}
{{- $repo := .Values.modelRepository }}
{{- if eq $repo.type "pvc" }}/models
{{- else if eq $repo.type "s3" }}
{{- if not (hasPrefix "s3://" $repo.s3.url) }}
{{- fail "modelRepository.s3.url must be s3://bucket[/prefix]" }}
{{- end }}
{{- $repo.s3.url }}
{{- else }}
{{- fail (printf "modelRepository.type must be pvc or s3, not %q" $repo.type) }}
{{- end }}
{{- end }}

{{/* The sum Kubernetes must wait before SIGKILL: grace + drain + margin. */}}
{{- define "inferd.terminationGracePeriod" -}}
{{- $s := .Values.shutdown }}
{{- add $s.graceSecs $s.exitTimeoutSecs $s.marginSecs }}
{{- end }}
