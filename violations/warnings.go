package violations

import "github.com/telark/protectionplans/render"

// isWarning reports whether a record is an advance warning, not a
// violation (issue 20): a rule named as render's warning rules are
// (render.IsWarningRule: what Kyverno's kyverno.io/v1 events and reports
// name), or any rule of a plan's warning policy (render.WarnTemplate: a
// NamespacedValidatingPolicy's records name the policy). A warning
// policy only ever warns: its records are the audited failures Kyverno
// makes warnings of.
func isWarning(entry IndexEntry, rule string) bool {
	return render.IsWarningRule(rule) || entry.Template == render.WarnTemplate
}
