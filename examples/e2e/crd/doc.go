// Package crd holds the live test of the ProtectionPlan CRD's validation
// (build tag e2e): against the harness's real kube-apiserver, the CRD from
// config/crd admits every sample plan of examples/plans and refuses, at
// kubectl apply, each plan that breaks one of its CEL rules (or schema
// limits), with the field named in the error; and it refuses updates that
// change the scope type or the approval mode.
//
// Run it with
//
//	PROTECTIONPLANS_E2E_ASSETS=... go test -count=1 -tags e2e ./e2e/crd/
package crd
