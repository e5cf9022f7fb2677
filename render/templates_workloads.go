package render

import (
	"strings"

	"github.com/telark/protectionplans/plan"
)

// Parameter names shared by several templates.
const (
	paramKinds     = "kinds"
	paramDirection = "direction"
)

// defaultLifecycleKinds are the kinds create and delete freeze by default:
// what people and deployment tools create and delete. Pods are left out:
// controllers outside kube-system (database and queue operators, CI
// runners) create and delete Pods as part of keeping workloads running, and
// freezing them would take those workloads down. ConfigMaps and Secrets are
// left to configmap-edits and secret-edits (and cert-manager creates and
// deletes temporary Secrets while renewing certificates).
var defaultLifecycleKinds = []Kind{
	KindDeployment, KindStatefulSet, KindDaemonSet, KindJob, KindCronJob,
	KindService, KindIngress, KindPVC,
}

// kindNames joins kind names with commas, as a stringList default.
func kindNames(ks []Kind) string {
	names := make([]string, len(ks))
	for i, k := range ks {
		names[i] = k.Kind
	}
	return strings.Join(names, ",")
}

// kindsParameter declares a template's kinds parameter.
func kindsParameter(def []Kind, what string) plan.ParameterInfo {
	return plan.ParameterInfo{
		Name:    paramKinds,
		Type:    plan.ParamStringList,
		Default: kindNames(def),
		Description: "Comma-separated kinds whose " + what + " is frozen, among: " +
			knownKindNames() + "; or any namespaced kind the cluster serves, written <Kind>.<group> (e.g. Rollout.argoproj.io).",
		Values:      kindNameList(),
		CustomKinds: true,
	}
}

func createTemplate() Template {
	return Template{
		info: plan.TemplateInfo{
			Name:  "create",
			Title: "Creation",
			Description: "Refuses creating resources of the listed kinds in scope. " +
				"Kubernetes' own controllers (kube-system service accounts, the controller manager, " +
				"the scheduler, nodes) are exempt, so ReplicaSets still get their Pods and CronJobs their Jobs.",
			Scopes:     bothScopes,
			Parameters: []plan.ParameterInfo{kindsParameter(defaultLifecycleKinds, "creation")},
		},
		rules: []RuleSpec{{
			Name: "create", What: "creating resources", KindsParam: paramKinds,
			Operations: []Operation{OpCreate}, Condition: Always,
		}},
	}
}

func deleteTemplate() Template {
	return Template{
		info: plan.TemplateInfo{
			Name:  "delete",
			Title: "Deletion",
			Description: "Refuses deleting resources of the listed kinds in scope. Pod evictions " +
				"(node drains) and the garbage collector are not affected.",
			Scopes:     bothScopes,
			Parameters: []plan.ParameterInfo{kindsParameter(defaultLifecycleKinds, "deletion")},
		},
		rules: []RuleSpec{{
			Name: "delete", What: "deleting resources", KindsParam: paramKinds,
			Operations: []Operation{OpDelete}, Condition: Always,
		}},
	}
}

func imageChangeTemplate() Template {
	const what = "changing container images"
	return Template{
		info: plan.TemplateInfo{
			Name:  "image-change",
			Title: "Image changes",
			Description: "Refuses changing the image of any container, init container or ephemeral " +
				"container (kubectl debug) of Deployments, StatefulSets, DaemonSets, Jobs, CronJobs " +
				"and Pods. Reordering containers and changing labels are not image changes.",
			Scopes: bothScopes,
		},
		rules: []RuleSpec{
			{Name: "template-images", What: what, Kinds: []Kind{KindDeployment, KindStatefulSet, KindDaemonSet, KindJob},
				Operations: []Operation{OpUpdate}, Condition: ImagesChanged},
			{Name: "cronjob-images", What: what, Kinds: []Kind{KindCronJob},
				Operations: []Operation{OpUpdate}, Condition: ImagesChanged},
			{Name: "pod-images", What: what, Kinds: []Kind{KindPod},
				Operations: []Operation{OpUpdate}, Condition: ImagesChanged},
		},
	}
}

func scalingTemplate() Template {
	return Template{
		info: plan.TemplateInfo{
			Name:  "scaling",
			Title: "Scaling",
			Description: "Refuses changing the replicas of Deployments and StatefulSets, through " +
				"spec.replicas or the /scale subresource (kubectl scale). The HorizontalPodAutoscaler " +
				"runs in kube-system and keeps scaling.",
			Scopes: bothScopes,
			Parameters: []plan.ParameterInfo{{
				Name: paramDirection, Type: plan.ParamString, Default: string(DirectionAny),
				Description: "Which changes are frozen: any, up (increases only) or down (decreases only).",
				Values:      []string{string(DirectionAny), string(DirectionUp), string(DirectionDown)},
			}},
		},
		rules: []RuleSpec{{
			Name: "replicas", What: "scaling", Kinds: []Kind{KindDeployment, KindStatefulSet},
			Subresources: []string{SubresourceScale}, Operations: []Operation{OpUpdate},
			Condition: ReplicasChanged, DirectionParam: paramDirection,
		}},
	}
}

func rolloutRestartTemplate() Template {
	return Template{
		info: plan.TemplateInfo{
			Name:  "rollout-restart",
			Title: "Rollout restarts",
			Description: "Refuses kubectl rollout restart of Deployments, StatefulSets and DaemonSets: " +
				"adding, changing or removing the pod template annotation kubectl.kubernetes.io/restartedAt.",
			Scopes: bothScopes,
		},
		rules: []RuleSpec{{
			Name: "restart", What: "restarting rollouts",
			Kinds:      []Kind{KindDeployment, KindStatefulSet, KindDaemonSet},
			Operations: []Operation{OpUpdate}, Condition: RestartedAtChanged,
		}},
	}
}
