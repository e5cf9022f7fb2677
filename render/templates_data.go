package render

import (
	"slices"

	"github.com/telark/protectionplans/plan"
)

// ConfigMap and Secret edits freeze updates of the content and deletions,
// not creations: a new ConfigMap or Secret changes nothing that runs until
// something refers to it, and that reference is itself a change the other
// templates freeze. List ConfigMap or Secret in the create template's kinds
// to freeze creation too.

func configMapEditsTemplate() Template {
	return Template{
		info: plan.TemplateInfo{
			Name:  "configmap-edits",
			Title: "ConfigMap edits",
			Description: "Refuses changing the content of ConfigMaps (data, binaryData, immutable) and " +
				"deleting them. Label and annotation changes, and creating new ConfigMaps, are allowed.",
			Scopes: bothScopes,
		},
		rules: []RuleSpec{
			{Name: "configmap-data", What: "editing ConfigMap data", Kinds: []Kind{KindConfigMap},
				Operations: []Operation{OpUpdate}, Condition: DataChanged},
			{Name: "configmap-delete", What: "deleting ConfigMaps", Kinds: []Kind{KindConfigMap},
				Operations: []Operation{OpDelete}, Condition: Always},
		},
	}
}

func secretEditsTemplate() Template {
	return Template{
		info: plan.TemplateInfo{
			Name:  "secret-edits",
			Title: "Secret edits",
			Description: "Refuses changing the content of Secrets (data, stringData, immutable) and deleting " +
				"them. Label and annotation changes, and creating new Secrets, are allowed. Controllers " +
				"outside kube-system that rotate Secrets (cert-manager renewals, external-secrets) are " +
				"refused too: exclude their Secrets, or keep the window shorter than their renewal margin.",
			Scopes: bothScopes,
		},
		rules: []RuleSpec{
			{Name: "secret-data", What: "editing Secret data", Kinds: []Kind{KindSecret},
				Operations: []Operation{OpUpdate}, Condition: DataChanged},
			{Name: "secret-delete", What: "deleting Secrets", Kinds: []Kind{KindSecret},
				Operations: []Operation{OpDelete}, Condition: Always},
		},
	}
}

func storageTemplate() Template {
	pvc := []Kind{KindPVC}
	return Template{
		info: plan.TemplateInfo{
			Name:  "storage",
			Title: "Storage",
			Description: "Refuses creating, deleting and resizing PersistentVolumeClaims " +
				"(a change of spec.resources.requests.storage).",
			Scopes: bothScopes,
		},
		rules: []RuleSpec{
			{Name: "pvc-create", What: "creating PersistentVolumeClaims", Kinds: pvc,
				Operations: []Operation{OpCreate}, Condition: Always},
			{Name: "pvc-delete", What: "deleting PersistentVolumeClaims", Kinds: pvc,
				Operations: []Operation{OpDelete}, Condition: Always},
			{Name: "pvc-resize", What: "resizing PersistentVolumeClaims", Kinds: pvc,
				Operations: []Operation{OpUpdate}, Condition: StorageRequestChanged},
		},
	}
}

// defaultAllWritesKinds is every known kind but Pod (see
// defaultLifecycleKinds for why).
func defaultAllWritesKinds() []Kind {
	return slices.DeleteFunc(KnownKinds(), func(k Kind) bool { return k == KindPod })
}

func allWritesTemplate() Template {
	return Template{
		info: plan.TemplateInfo{
			Name:  "all-writes",
			Title: "All writes",
			Description: "Refuses every create, update (including /scale) and delete of the listed kinds " +
				"in scope, labels and annotations included. Status updates, events and leases are " +
				"never frozen, and Kubernetes' own controllers are exempt.",
			Scopes:     bothScopes,
			Parameters: []plan.ParameterInfo{kindsParameter(defaultAllWritesKinds(), "every write")},
		},
		rules: []RuleSpec{{
			Name: "writes", What: "changing resources", KindsParam: paramKinds,
			Subresources: []string{SubresourceScale},
			Operations:   []Operation{OpCreate, OpUpdate, OpDelete}, Condition: Always,
		}},
	}
}
