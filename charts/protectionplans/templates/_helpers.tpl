{{/* Labels of every object. */}}
{{- define "pp.labels" -}}
app.kubernetes.io/name: protectionplans
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end -}}

{{- define "pp.selector" -}}
app.kubernetes.io/name: protectionplans
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{/* The values the chart refuses, with the reason. */}}
{{- define "pp.check" -}}
{{- if not (has .Values.target (list "auto" "kyverno" "kyverno-cel" "vap")) -}}
{{- fail (printf "target: %q is not one of auto, kyverno, kyverno-cel, vap" .Values.target) -}}
{{- end -}}
{{- if not (has .Values.layout (list "standard" "compact")) -}}
{{- fail (printf "layout: %q is not standard or compact" .Values.layout) -}}
{{- end -}}
{{- if and (gt (int .Values.operator.replicas) 1) (ne .Values.reports.accessMode "ReadWriteMany") -}}
{{- fail "operator.replicas: more than one replica needs reports.accessMode ReadWriteMany (every replica mounts the reports volume; ReadWriteOnce attaches to one node)" -}}
{{- end -}}
{{- if and .Values.kyverno.features.forceFailurePolicyIgnore.enabled (not .Values.app.kyverno.failOpen) -}}
{{- fail "kyverno.features.forceFailurePolicyIgnore.enabled makes every Kyverno webhook fail open: set app.kyverno.failOpen=true to accept that frozen changes pass while Kyverno is down" -}}
{{- end -}}
{{- end -}}
