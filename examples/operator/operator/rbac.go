package operator

// The operator's permissions, as RBAC markers: controller-gen writes them
// to config/rbac/operator/role.yaml (a ClusterRole protectionplans-operator
// and, for the leader election Lease, a Role in the namespace the operator
// runs in; kustomize's namespace replaces the one below).
// TestRBACIsFresh fails when the file differs from what the markers
// generate. Least privilege: no wildcard, one line per need, and why.
//
//go:generate go run sigs.k8s.io/controller-tools/cmd/controller-gen@v0.21.0 rbac:roleName=protectionplans-operator paths=./ output:rbac:artifacts:config=../../../config/rbac/operator

// Plans: the cache watches them; kubectl-made plans get their creator's
// spec fields filled in (plan.Create) and every pass writes status.
// +kubebuilder:rbac:groups=telark.io,resources=protectionplans,verbs=list;watch;update
// The edge restore finalizer added and removed, and the edge abandon
// annotation cleared: a merge patch of the plan's metadata.
// +kubebuilder:rbac:groups=telark.io,resources=protectionplans,verbs=patch
// +kubebuilder:rbac:groups=telark.io,resources=protectionplans/status,verbs=update

// No CRD write permission (list only, below, for the custom kinds plans
// freeze: plan.ServedKinds): config/ installs the CRD and runs the operator with
// --install-crd=false. An operator left to install it (--install-crd,
// the flag's default outside a cluster) also needs
// config/rbac/install_crd_role.yaml.

// The rendered policies: listed by label, server-side applied (create on
// first apply), the failure action patched, withdrawn and swept. An
// operator uses only its target's kinds, chosen at start (--target, or
// auto by what the cluster serves), so the role names the three targets'.
// +kubebuilder:rbac:groups=kyverno.io,resources=policies,verbs=list;create;patch;delete
// +kubebuilder:rbac:groups=policies.kyverno.io,resources=namespacedvalidatingpolicies,verbs=list;create;patch;delete
// +kubebuilder:rbac:groups=admissionregistration.k8s.io,resources=validatingadmissionpolicies;validatingadmissionpolicybindings,verbs=list;create;patch;delete

// What a pass reads (kube.Reader, uncached): namespaces (metadata only),
// the categories and excluded-namespaces ConfigMaps, violations (Kyverno's
// PolicyViolation events and PolicyReports).
// A namespaceSelectors plan renders cluster-wide ClusterPolicies
// (kyverno) or ValidatingPolicies (kyverno-cel).
// +kubebuilder:rbac:groups=kyverno.io,resources=clusterpolicies,verbs=list;create;patch;delete
// +kubebuilder:rbac:groups=policies.kyverno.io,resources=validatingpolicies,verbs=list;create;patch;delete
// +kubebuilder:rbac:groups=apiextensions.k8s.io,resources=customresourcedefinitions,verbs=list
// The enforcement check (--enforcement-check) reads Kyverno's webhook
// configurations, the guard and its binding, and the PolicyExceptions of
// both APIs (health.Enforcement).
// +kubebuilder:rbac:groups=admissionregistration.k8s.io,resources=validatingwebhookconfigurations,verbs=list
// +kubebuilder:rbac:groups=admissionregistration.k8s.io,resources=validatingadmissionpolicies;validatingadmissionpolicybindings,verbs=get
// +kubebuilder:rbac:groups=kyverno.io,resources=policyexceptions,verbs=list
// +kubebuilder:rbac:groups=policies.kyverno.io,resources=policyexceptions,verbs=list
// +kubebuilder:rbac:groups="",resources=namespaces,verbs=list
// +kubebuilder:rbac:groups="",resources=configmaps,verbs=get
// +kubebuilder:rbac:groups="",resources=events,verbs=list
// +kubebuilder:rbac:groups=wgpolicyk8s.io,resources=policyreports,verbs=list

// An application's namespaces are those holding an object with its
// instance label (plan.InstanceMemberKinds), listed metadata only. RBAC
// cannot grant metadata alone, so list on Secrets lets the service
// account read them: no template needs it, the application resolver does
// (a namespace whose only labeled member is a Secret). Taking Secret out
// of the member kinds is the way to drop it.
// +kubebuilder:rbac:groups=apps,resources=deployments;statefulsets;daemonsets,verbs=list
// +kubebuilder:rbac:groups=batch,resources=cronjobs;jobs,verbs=list
// +kubebuilder:rbac:groups="",resources=services;configmaps;secrets;persistentvolumeclaims,verbs=list

// Edge actions (--edge-executor): the objects they touch or read, listed
// cluster-wide (Argo CD and Flux objects live outside the scope they
// deploy into); the journals' Secrets in the release namespace only
// (read, written before any patch, deleted once restored); and the
// impersonation of exactly the executor service account with the
// user-info extra naming the plan. The executor's own rights, to patch
// what the actions change, are config/rbac/edge-executor/role.yaml
// (examples/operator/edgeexecutor). RBAC cannot bound the extra's value.
// +kubebuilder:rbac:groups=autoscaling,resources=horizontalpodautoscalers,verbs=list
// +kubebuilder:rbac:groups=argoproj.io,resources=applications,verbs=list
// +kubebuilder:rbac:groups=kustomize.toolkit.fluxcd.io,resources=kustomizations,verbs=list
// +kubebuilder:rbac:groups=helm.toolkit.fluxcd.io,resources=helmreleases,verbs=list
// +kubebuilder:rbac:groups="",resources=secrets,verbs=get;create;update;delete,namespace=telark-system
// +kubebuilder:rbac:groups="",resources=serviceaccounts,verbs=impersonate,resourceNames=edge-executor
// +kubebuilder:rbac:groups=authentication.k8s.io,resources=userextras/protectionplans.telark.io/plan,verbs=impersonate

// The active probe (--probe, on by default; health.Probes): per frozen
// namespace and template of an enforcing plan, a server-side dry-run
// create of an object named health.ProbeName of the cheapest kind the
// plan's create or all-writes policy refuses (ConfigMap, Secret,
// ServiceAccount, Deployment). RBAC authorizes a dry-run as the write
// itself and cannot grant dry-run alone: without create the probe is
// refused by RBAC, never by the plan, and EnforcementVerified stays False
// (ProbeRefusedOtherwise; the faults e2e found it once the operator ran
// as this ServiceAccount). The operator sends these creates only with
// dryRun=All. This is the widest grant of the role (create Deployments
// anywhere): an operator run with --probe=false can drop these two lines.
// +kubebuilder:rbac:groups="",resources=configmaps;secrets;serviceaccounts,verbs=create
// +kubebuilder:rbac:groups=apps,resources=deployments,verbs=create

// Events on the plans (controller-runtime's events.k8s.io recorder) and
// the leader election's (core events).
// +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch
// +kubebuilder:rbac:groups="",resources=events,verbs=create;patch

// The leader election Lease, in the operator's namespace.
// +kubebuilder:rbac:groups=coordination.k8s.io,resources=leases,verbs=get;create;update,namespace=telark-system
