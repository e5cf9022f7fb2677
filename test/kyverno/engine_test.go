package kyverno_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"
	"time"

	kyvernov1 "github.com/kyverno/kyverno/api/kyverno/v1"
	kyvernov2 "github.com/kyverno/kyverno/api/kyverno/v2"
	"github.com/kyverno/kyverno/pkg/config"
	"github.com/kyverno/kyverno/pkg/engine"
	engineapi "github.com/kyverno/kyverno/pkg/engine/api"
	enginecontext "github.com/kyverno/kyverno/pkg/engine/context"
	"github.com/kyverno/kyverno/pkg/engine/jmespath"
	imageverifycache "github.com/kyverno/kyverno/pkg/image/verification/cache"
	admissionv1 "k8s.io/api/admission/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/telark/protectionplans/plan"
	"github.com/telark/protectionplans/render"
)

// corpusCase mirrors the format of render/testdata/explain_corpus.json.
type corpusCase struct {
	Name  string `json:"name"`
	Input struct {
		Plan         *plan.ProtectionPlan `json:"plan"`
		Applications []plan.Application   `json:"applications"`
		Now          time.Time            `json:"now"`
	} `json:"input"`
	Request render.Request  `json:"request"`
	Want    render.Decision `json:"want"`
}

func loadCorpus(t *testing.T) []corpusCase {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(goldenDir, "explain_corpus.json"))
	if err != nil {
		t.Fatal(err)
	}
	var cases []corpusCase
	if err := json.Unmarshal(b, &cases); err != nil {
		t.Fatal(err)
	}
	return cases
}

func TestEngineAgreesWithExplain(t *testing.T) {
	cfg := config.NewDefaultConfiguration(false)
	jp := jmespath.New(cfg)
	for _, c := range loadCorpus(t) {
		t.Run(c.Name, func(t *testing.T) {
			in := render.Input{Plan: c.Input.Plan, Applications: c.Input.Applications, Now: c.Input.Now}
			d, err := render.Explain(in, c.Request)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(d, c.Want) {
				t.Fatalf("Explain no longer decides as recorded:\n got %+v\nwant %+v", d, c.Want)
			}
			res, err := render.Render(in)
			if err != nil {
				t.Fatal(err)
			}
			got := runKyverno(t, cfg, jp, res, c.Request)
			if got.blocked != c.Want.Blocked || got.audited != c.Want.Audited || got.recorded != c.Want.Exempt {
				t.Fatalf("Kyverno: blocked=%v audited=%v recorded=%v (failed rules %v); Explain: blocked=%v audited=%v exempt=%v (%s)",
					got.blocked, got.audited, got.recorded, got.failed, c.Want.Blocked, c.Want.Audited, c.Want.Exempt, c.Want.Reason)
			}
			if c.Want.Rule != "" && !slices.Contains(got.failed, c.Want.Policy+"/"+c.Want.Rule) {
				t.Errorf("Kyverno failed %v, Explain names %s/%s", got.failed, c.Want.Policy, c.Want.Rule)
			}
			if c.Want.Message != "" && !slices.Contains(got.messages, c.Want.Message) {
				t.Errorf("Kyverno's messages %q lack %q", got.messages, c.Want.Message)
			}
		})
	}
}

// engines runs a target's rendered policies, on the request's namespace,
// through that target's real engine.
func engines() map[render.Target]func(*testing.T, render.Result, render.Request) verdict {
	cfg := config.NewDefaultConfiguration(false)
	jp := jmespath.New(cfg)
	return map[render.Target]func(*testing.T, render.Result, render.Request) verdict{
		render.TargetKyverno: func(t *testing.T, res render.Result, req render.Request) verdict {
			return runKyverno(t, cfg, jp, res, req)
		},
		render.TargetKyvernoCEL: runKyvernoCEL,
		render.TargetVAP:        runVAP,
	}
}

type verdict struct {
	blocked, audited bool
	// recorded: the record policy of exempt requesters (template
	// render.ExemptTemplate) recorded the request.
	recorded bool
	failed   []string // "<policy>/<rule>"
	messages []string
	// warnings are the messages of the warning policy
	// (render.WarnTemplate), which must never refuse.
	warnings []string
}

// runKyverno evaluates every rendered policy of the request's namespace
// with Kyverno's engine, as its validating webhook does.
func runKyverno(t *testing.T, cfg config.Configuration, jp jmespath.Interface, res render.Result, req render.Request) verdict {
	t.Helper()
	eng := engine.NewEngine(cfg, jp, nil, nil, imageverifycache.DisabledImageVerifyCache(),
		parentLabelsLoader(req.Labels), nil, nil)
	pc, err := engine.NewPolicyContextFromAdmissionRequest(jp, admissionRequest(t, req),
		kyvernov2.RequestInfo{AdmissionUserInfo: authenticationv1.UserInfo{Username: req.UserInfo.Username, Groups: req.UserInfo.Groups}},
		req.Kind, cfg)
	if err != nil {
		t.Fatal(err)
	}
	var v verdict
	for _, p := range res.Policies {
		if p.Namespace != req.Namespace {
			continue
		}
		var pol kyvernov1.Policy
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(p.Objects[0].Object, &pol); err != nil {
			t.Fatal(err)
		}
		resp := eng.Validate(context.Background(), pc.WithPolicy(&pol))
		if p.Template == render.WarnTemplate {
			if resp.HasEnforcedFailure() {
				t.Errorf("the warning policy %s refused the request", pol.Name)
			}
			for _, r := range resp.PolicyResponse.Rules {
				switch r.Status() {
				case engineapi.RuleStatusFail:
					v.warnings = append(v.warnings, r.Message())
				case engineapi.RuleStatusError:
					t.Errorf("rule %s/%s errors: %s", pol.Name, r.Name(), r.Message())
				}
			}
			continue
		}
		for _, r := range resp.PolicyResponse.Rules {
			switch r.Status() {
			case engineapi.RuleStatusFail:
				v.failed = append(v.failed, pol.Name+"/"+r.Name())
				v.messages = append(v.messages, r.Message())
			case engineapi.RuleStatusError:
				t.Errorf("rule %s/%s errors: %s", pol.Name, r.Name(), r.Message())
			}
		}
		switch {
		case p.Template == render.ExemptTemplate && resp.HasEnforcedFailure():
			t.Errorf("the record policy %s refused the request", pol.Name)
		case p.Template == render.ExemptTemplate && resp.IsFailed():
			v.recorded = true
		case resp.HasEnforcedFailure():
			v.blocked = true
		case resp.IsFailed():
			v.audited = true
		}
	}
	return v
}

// admissionRequest builds the AdmissionRequest the API server would send.
func admissionRequest(t *testing.T, req render.Request) admissionv1.AdmissionRequest {
	t.Helper()
	raw := func(o map[string]any) runtime.RawExtension {
		if o == nil {
			return runtime.RawExtension{}
		}
		b, err := json.Marshal(o)
		if err != nil {
			t.Fatal(err)
		}
		return runtime.RawExtension{Raw: b}
	}
	kind := metav1.GroupVersionKind(req.Kind)
	if req.Subresource == "scale" {
		kind = metav1.GroupVersionKind{Group: "autoscaling", Version: "v1", Kind: "Scale"}
	}
	resource := metav1.GroupVersionResource(schema.GroupVersionResource{Group: req.Kind.Group, Version: req.Kind.Version, Resource: plural(req.Kind.Kind)})
	user := authenticationv1.UserInfo{Username: req.UserInfo.Username, Groups: req.UserInfo.Groups}
	for k, v := range req.UserInfo.Extra {
		if user.Extra == nil {
			user.Extra = map[string]authenticationv1.ExtraValue{}
		}
		user.Extra[k] = v
	}
	var options runtime.RawExtension
	if req.FieldManager != "" { // an apply's PatchOptions, as the API server sends them
		options = raw(map[string]any{"kind": "PatchOptions", "apiVersion": "meta.k8s.io/v1", "fieldManager": req.FieldManager})
	}
	return admissionv1.AdmissionRequest{
		Options:         options,
		UID:             types.UID("00000000-0000-0000-0000-000000000001"),
		Kind:            kind,
		Resource:        resource,
		SubResource:     req.Subresource,
		RequestKind:     &kind,
		RequestResource: &resource,
		Name:            name(req),
		Namespace:       req.Namespace,
		Operation:       admissionv1.Operation(req.Operation),
		UserInfo:        user,
		Object:          raw(req.Object),
		OldObject:       raw(req.OldObject),
	}
}

func name(req render.Request) string {
	if req.Name != "" {
		return req.Name
	}
	for _, o := range []map[string]any{req.Object, req.OldObject} {
		if m, ok := o["metadata"].(map[string]any); ok {
			if n, ok := m["name"].(string); ok {
				return n
			}
		}
	}
	return ""
}

func plural(kind string) string {
	for _, k := range render.KnownKinds() {
		if k.Kind == kind {
			return k.Resource
		}
	}
	return map[string]string{"Lease": "leases"}[kind]
}

// parentLabelsLoader serves the parentLabels apiCall of /scale rules from
// the request's parent labels, where the live Kyverno GETs the parent.
func parentLabelsLoader(labels map[string]string) engineapi.ContextLoaderFactory {
	return func(kyvernov1.PolicyInterface, kyvernov1.Rule) engineapi.ContextLoader {
		return loader{labels: labels}
	}
}

type loader struct{ labels map[string]string }

func (l loader) Load(_ context.Context, _ jmespath.Interface, _ engineapi.RawClient, _ engineapi.RegistryClientFactory,
	entries []kyvernov1.ContextEntry, jsonContext enginecontext.Interface) error {
	for _, e := range entries {
		if e.APICall == nil || e.Name != "parentLabels" {
			return fmt.Errorf("unexpected context entry %q", e.Name)
		}
		labels := l.labels
		if labels == nil {
			labels = map[string]string{}
		}
		b, _ := json.Marshal(labels)
		if err := jsonContext.AddContextEntry(e.Name, b); err != nil {
			return err
		}
	}
	return nil
}
