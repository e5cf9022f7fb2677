package violations

import (
	"errors"
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// reportKinds are the report kinds read: wgpolicyk8s.io PolicyReport and
// ClusterPolicyReport (what Kyverno 1.19 writes by default), and
// openreports.io Report and ClusterReport (the same shape, when Kyverno's
// openreports option is on).
var reportKinds = map[schema.GroupKind]bool{
	{Group: "wgpolicyk8s.io", Kind: "PolicyReport"}:        true,
	{Group: "wgpolicyk8s.io", Kind: "ClusterPolicyReport"}: true,
	{Group: "openreports.io", Kind: "Report"}:              true,
	{Group: "openreports.io", Kind: "ClusterReport"}:       true,
}

// policyReport is the part of a PolicyReport read here.
type policyReport struct {
	Scope   *corev1.ObjectReference `json:"scope,omitempty"`
	Results []reportResult          `json:"results,omitempty"`
}

type reportResult struct {
	Source    string                   `json:"source,omitempty"`
	Policy    string                   `json:"policy"`
	Rule      string                   `json:"rule,omitempty"`
	Result    string                   `json:"result,omitempty"`
	Message   string                   `json:"message,omitempty"`
	Timestamp reportTimestamp          `json:"timestamp,omitempty"`
	Resources []corev1.ObjectReference `json:"resources,omitempty"`
}

type reportTimestamp struct {
	Seconds int64 `json:"seconds"`
	Nanos   int32 `json:"nanos"`
}

// FromPolicyReports reads the results of PolicyReports (listed as
// unstructured objects, e.g. with a dynamic client) into violations of the
// policies in idx: one per result and resource. Kyverno names a namespaced
// policy "<namespace>/<name>" in a result; the resource is the result's
// own (resources) or else the report's scope.
//
// A PolicyReport is a summary, not a history: it holds the latest result
// of each rule for each resource, results of admitted requests only (a
// refused request leaves none), and every result is a pass, fail, warn,
// error or skip as Kyverno reported it. Blocked is always false here. The
// key of a result is its policy, rule, result, resource and timestamp, so
// reading the same report again merges.
//
// Results of policies not in idx are counted in Batch.Skipped; an object
// that is not a report, or a result without a policy, with an unknown
// result or with a time outside the years 0000 to 9999 (which a ledger
// cannot record), is counted in Batch.Unrecognized and reported in the
// returned error (an errors.Join of *UnrecognizedError).
func FromPolicyReports(idx PolicyIndex, reports []*unstructured.Unstructured) (Batch, error) {
	var b Batch
	var errs []error
	var vs []Violation
	for _, u := range reports {
		if u == nil {
			continue
		}
		rvs, err := readReport(idx, u, &b)
		vs = append(vs, rvs...)
		errs = append(errs, err...)
	}
	b.Unrecognized = len(errs)
	b.Violations = dedupe(vs)
	return b, errors.Join(errs...)
}

func readReport(idx PolicyIndex, u *unstructured.Unstructured, b *Batch) ([]Violation, []error) {
	fail := func(format string, a ...any) error {
		return &UnrecognizedError{Source: SourcePolicyReport, Namespace: u.GetNamespace(), Name: u.GetName(),
			Reason: fmt.Sprintf(format, a...)}
	}
	gk := u.GroupVersionKind().GroupKind()
	if !reportKinds[gk] {
		b.Read++
		return nil, []error{fail("kind %q of %q is not a policy report", gk.Kind, u.GetAPIVersion())}
	}
	var rep policyReport
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, &rep); err != nil {
		b.Read++
		return nil, []error{fail("%v", err)}
	}
	var vs []Violation
	var errs []error
	for i, r := range rep.Results {
		b.Read++
		if r.Policy == "" {
			errs = append(errs, fail("result %d has no policy", i))
			continue
		}
		result := Result(r.Result)
		if !knownResult(result) {
			errs = append(errs, fail("result %d: unknown result %q", i, r.Result))
			continue
		}
		ns, name, found := strings.Cut(r.Policy, "/")
		if !found {
			ns, name = "", r.Policy
		}
		entry, ok := idx.Lookup(ns, name)
		if !ok {
			b.Skipped++
			continue
		}
		if isWarning(entry, r.Rule) {
			b.Warnings++
			continue
		}
		resources := r.Resources
		if len(resources) == 0 && rep.Scope != nil {
			resources = []corev1.ObjectReference{*rep.Scope}
		}
		if len(resources) == 0 {
			errs = append(errs, fail("result %d names no resource and the report has no scope", i))
			continue
		}
		ts := time.Unix(r.Timestamp.Seconds, int64(r.Timestamp.Nanos)).UTC()
		if r.Timestamp == (reportTimestamp{}) {
			ts = u.GetCreationTimestamp().UTC()
		}
		if !writable(ts) {
			errs = append(errs, fail("result %d: time %s is outside the years 0000 to 9999", i, ts.Format(time.RFC3339Nano)))
			continue
		}
		for _, ref := range resources {
			if IsProbe(ref.Name) { // a dry-run leaves no report; kept out all the same
				continue
			}
			vs = append(vs, reportViolation(entry, r, result, ref, ts))
		}
	}
	return vs, errs
}

func reportViolation(entry IndexEntry, r reportResult, result Result, ref corev1.ObjectReference, ts time.Time) Violation {
	res := Resource{APIVersion: ref.APIVersion, Kind: ref.Kind, Namespace: ref.Namespace, Name: ref.Name}
	if gv, err := schema.ParseGroupVersion(ref.APIVersion); err == nil && gv.Group == "autoscaling" && ref.Kind == "Scale" {
		res.Subresource = "scale"
	}
	return Violation{
		Key: makeKey(string(SourcePolicyReport), entry.Namespace, entry.Name, r.Rule, string(result),
			ref.Kind, ref.Namespace, ref.Name, string(ref.UID), timeKey(ts)),
		Plan:            entry.Plan,
		Template:        entry.Template,
		Policy:          entry.Name,
		PolicyNamespace: entry.Namespace,
		Rule:            r.Rule,
		Resource:        res,
		Result:          result,
		Message:         r.Message,
		Requester:       RecordRequester(r.Message),
		Timestamp:       ts,
		FirstSeen:       ts,
		Count:           1,
		Source:          SourcePolicyReport,
	}
}

func knownResult(r Result) bool {
	switch r {
	case ResultPass, ResultFail, ResultWarn, ResultError, ResultSkip:
		return true
	}
	return false
}
