package violations

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParsePolicyNote(t *testing.T) {
	tests := []struct {
		name                  string
		note                  string
		kind, namespace, rsrc string // the related object, if any
		want                  policyNote
		wantOK                bool
	}{
		{
			name: "an audited change reads kind, resource, rule, result and message",
			note: "Deployment shop/web: [replicas] fail; would be blocked by protection plan Summer freeze: scaling",
			kind: "Deployment", namespace: "shop", rsrc: "web",
			want: policyNote{Kind: "Deployment", Namespace: "shop", Name: "web", Rule: "replicas", Result: ResultFail,
				Message: "would be blocked by protection plan Summer freeze: scaling"},
			wantOK: true,
		},
		{
			name: "a refused change is blocked",
			note: "Scale shop/web: [replicas] fail (blocked); spec.replicas is frozen: 1 -> 3",
			kind: "Scale", namespace: "shop", rsrc: "web",
			want: policyNote{Kind: "Scale", Namespace: "shop", Name: "web", Rule: "replicas", Result: ResultFail,
				Blocked: true, Message: "spec.replicas is frozen: 1 -> 3"},
			wantOK: true,
		},
		{
			name: "a CEL policy's rule has no name and no brackets",
			note: "Deployment shop/web: fail (blocked); spec.replicas is frozen (CEL)",
			kind: "Deployment", namespace: "shop", rsrc: "web",
			want: policyNote{Kind: "Deployment", Namespace: "shop", Name: "web", Result: ResultFail, Blocked: true,
				Message: "spec.replicas is frozen (CEL)"},
			wantOK: true,
		},
		{
			name: "a resource name holding ': fail' parses when the related object is known",
			note: "Role shop/ops: fail; x: [r] fail; msg",
			kind: "Role", namespace: "shop", rsrc: "ops: fail; x",
			want: policyNote{Kind: "Role", Namespace: "shop", Name: "ops: fail; x", Rule: "r", Result: ResultFail,
				Message: "msg"},
			wantOK: true,
		},
		{
			name: "without the related object the resource ends at the first verdict",
			note: "Deployment shop/web: [replicas] error; context failed",
			want: policyNote{Kind: "Deployment", Namespace: "shop", Name: "web", Rule: "replicas", Result: ResultError,
				Message: "context failed"},
			wantOK: true,
		},
		{
			name:   "a cluster-scoped resource has no namespace",
			note:   "Namespace shop: [labels] fail; frozen",
			want:   policyNote{Kind: "Namespace", Name: "shop", Rule: "labels", Result: ResultFail, Message: "frozen"},
			wantOK: true,
		},
		{
			name:   "a verdict without a message",
			note:   "Deployment shop/web: [replicas] fail",
			want:   policyNote{Kind: "Deployment", Namespace: "shop", Name: "web", Rule: "replicas", Result: ResultFail},
			wantOK: true,
		},
		{name: "an unknown status is refused", note: "Deployment shop/web: [replicas] denied; frozen"},
		{name: "the resource's message shape is not the policy's", note: "policy p/r fail: frozen"},
		{name: "text after the status must start with '; '", note: "Deployment shop/web: [r] fail, frozen"},
		{name: "an unclosed rule bracket is refused", note: "Deployment shop/web: [replicas fail; x"},
		{name: "an empty message is refused", note: ""},
		{name: "a resource without a name is refused", note: "Deployment shop/: fail"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := parsePolicyNote(tt.note, tt.kind, tt.namespace, tt.rsrc)
			if ok != tt.wantOK {
				t.Fatalf("parsePolicyNote(%q) ok = %v, want %v (got %+v)", tt.note, ok, tt.wantOK, got)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("parsePolicyNote(%q) (-want +got):\n%s", tt.note, diff)
			}
		})
	}
}

func TestParseResourceNote(t *testing.T) {
	tests := []struct {
		name   string
		note   string
		want   resourceNote
		wantOK bool
	}{
		{
			name:   "an audited change names policy, rule, result and message",
			note:   "policy summer-freeze-scaling/replicas fail: would be blocked by protection plan Summer freeze: scaling",
			want:   resourceNote{Policy: "summer-freeze-scaling", Rule: "replicas", Result: ResultFail, Message: "would be blocked by protection plan Summer freeze: scaling"},
			wantOK: true,
		},
		{
			name:   "a CEL policy's rule is empty",
			note:   "policy freeze-replicas-cel/ fail: spec.replicas is frozen (CEL)",
			want:   resourceNote{Policy: "freeze-replicas-cel", Result: ResultFail, Message: "spec.replicas is frozen (CEL)"},
			wantOK: true,
		},
		{
			name:   "a passing rule of a failing policy is read too",
			note:   "policy p/other pass: ",
			want:   resourceNote{Policy: "p", Rule: "other", Result: ResultPass},
			wantOK: true,
		},
		{
			name:   "the first status after the slash ends the rule",
			note:   "policy p/r error: rule x fail: y",
			want:   resourceNote{Policy: "p", Rule: "r", Result: ResultError, Message: "rule x fail: y"},
			wantOK: true,
		},
		{name: "no policy name is refused", note: "policy /r fail: x"},
		{name: "no slash is refused", note: "policy p fail: x"},
		{name: "no status is refused", note: "policy p/r denied: x"},
		{name: "another prefix is refused", note: "Policy p/r fail: x"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := parseResourceNote(tt.note)
			if ok != tt.wantOK {
				t.Fatalf("parseResourceNote(%q) ok = %v, want %v (got %+v)", tt.note, ok, tt.wantOK, got)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("parseResourceNote(%q) (-want +got):\n%s", tt.note, diff)
			}
		})
	}
}

// TestNotesRoundTrip formats random decisions as Kyverno does and reads
// them back.
func TestNotesRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	word := func(alphabet string, n int) string {
		var b strings.Builder
		for range 1 + r.IntN(n) {
			b.WriteByte(alphabet[r.IntN(len(alphabet))])
		}
		return b.String()
	}
	const dns = "abcdefghijklmnopqrstuvwxyz0123456789-."
	const text = "abc XYZ:;[]()/{}-> 0123 fail pass\t"
	for i := range 2000 {
		kind := "K" + word("abcdefghijklmnopqrstuvwxyz", 12)
		ns, name := word(dns, 20), word(dns+": ", 30)
		if r.IntN(4) == 0 {
			ns = ""
		}
		rule := word(dns, 20)
		if r.IntN(4) == 0 {
			rule = ""
		}
		status := statuses[r.IntN(len(statuses))]
		blocked := r.IntN(2) == 0
		msg := word(text, 80)
		if r.IntN(8) == 0 {
			msg = ""
		}
		note := kyvernoPolicyNote(kind, ns, name, rule, status, blocked, msg)
		got, ok := parsePolicyNote(note, kind, ns, name)
		want := policyNote{Kind: kind, Namespace: ns, Name: name, Rule: rule, Result: status, Blocked: blocked, Message: msg}
		if !ok || got != want {
			t.Fatalf("%d: parsePolicyNote(%q) = %+v, %v; want %+v", i, note, got, ok, want)
		}
		policy := word(dns, 40)
		rnote := kyvernoResourceNote(policy, rule, status, msg)
		rgot, ok := parseResourceNote(rnote)
		rwant := resourceNote{Policy: policy, Rule: rule, Result: status, Message: msg}
		if !ok || rgot != rwant {
			t.Fatalf("%d: parseResourceNote(%q) = %+v, %v; want %+v", i, rnote, rgot, ok, rwant)
		}
	}
}

// FuzzParseNotes proves that no message makes the parsers panic, and that
// what they accept is a known result.
func FuzzParseNotes(f *testing.F) {
	for _, s := range []string{
		"Deployment shop/web: [replicas] fail; would be blocked by protection plan x: scaling",
		"Scale shop/web: [replicas] fail (blocked); spec.replicas is frozen: 1 -> 3",
		"Deployment shop/web: fail (blocked); spec.replicas is frozen (CEL)",
		"policy p/r fail: frozen", "policy p/ fail: ", "policy /: ", "[", "] ", ": [", "; ", "",
	} {
		f.Add(s, "Deployment", "shop", "web")
	}
	f.Fuzz(func(t *testing.T, note, kind, ns, name string) {
		if n, ok := parsePolicyNote(note, kind, ns, name); ok {
			if !knownResult(n.Result) || n.Name == "" {
				t.Fatalf("parsePolicyNote(%q) accepted %+v", note, n)
			}
		}
		if n, ok := parseResourceNote(note); ok {
			if !knownResult(n.Result) || n.Policy == "" {
				t.Fatalf("parseResourceNote(%q) accepted %+v", note, n)
			}
		}
	})
}
