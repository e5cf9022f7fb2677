package operator

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/telark/protectionplans/examples/internal/store"
	"github.com/telark/protectionplans/plan"
	"github.com/telark/protectionplans/report"
)

// The reports directory, <reports-dir>/<plan ID>/, is store.FS: the
// plan's ledger, health samples and final reports, and observed, the
// plan's record (store.ObservedFile), every file written atomically and
// the JSON ones in two generations.

// BackupSuffix names the previous generation of a plan's JSON file
// (store.BackupSuffix), for the FileRecovered event.
const BackupSuffix = store.BackupSuffix

// observed is what the operator last saw of the plan (the plan's record,
// store.ObservedFile): its UID, phase, start and the policies of its run.
// It tells the operator, after a restart or a change made by someone else
// (a cancel stored by the API server), which lifecycle step it has not
// reported yet.
type observed struct {
	UID       types.UID    `json:"uid"`
	Phase     plan.Phase   `json:"phase"`
	StartedAt *metav1.Time `json:"startedAt,omitempty"`
	// Policies are the policies of the current run, for the final report
	// (a plan that ended renders none).
	Policies []report.PolicyInfo `json:"policies"`
	// Applications are the plan's applications as last resolved.
	Applications []plan.Application `json:"applications,omitempty"`
}
