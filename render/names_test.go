package render

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation"
)

func TestPolicyName(t *testing.T) {
	long := strings.Repeat("a", 63)
	tests := []struct {
		name, planID, template, want string
	}{
		{"a short plan ID is kept", "summer-freeze", "image-change", "summer-freeze-image-change"},
		{"dots become dashes, with a hash", "team.a", "scaling", "team-a-dc6273296f-scaling"},
		{"a long plan ID is cut and hashed", long, "rollout-restart", strings.Repeat("a", 36) + "-" + PolicyName(long, "rollout-restart")[37:47] + "-rollout-restart"},
		{"an ID that looks hashed is hashed again", "x-0123456789", "create", "x-0123456789-" + PolicyName("x-0123456789", "create")[13:23] + "-create"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := PolicyName(tt.planID, tt.template)
			if got != tt.want {
				t.Errorf("PolicyName(%q, %q) = %q, want %q", tt.planID, tt.template, got, tt.want)
			}
		})
	}
}

func TestPolicyName_ValidForEveryTemplateAndLength(t *testing.T) {
	for n := 1; n <= 63; n++ {
		for _, id := range []string{strings.Repeat("p", n), strings.TrimRight(strings.Repeat("ab.c-", 13)[:n], ".-") + "z"} {
			checkNames(t, id)
		}
	}
}

func checkNames(t *testing.T, id string) {
	{
		for _, tmpl := range Catalog() {
			name := PolicyName(id, tmpl.Name())
			if len(name) > 63 {
				t.Errorf("PolicyName(%q, %s) is %d characters", id, tmpl.Name(), len(name))
			}
			if msgs := validation.IsDNS1123Label(name); len(msgs) > 0 {
				t.Errorf("PolicyName(%q, %s) = %q: %v", id, tmpl.Name(), name, msgs)
			}
		}
	}
}

func TestPolicyName_LongIDsSharingAPrefixDoNotCollide(t *testing.T) {
	prefix := strings.Repeat("checkout-black-friday-", 3)[:50]
	a, b := prefix+"-eu-west-1", prefix+"-us-east-2"
	for _, tmpl := range Catalog() {
		na, nb := PolicyName(a, tmpl.Name()), PolicyName(b, tmpl.Name())
		if na == nb {
			t.Errorf("%s: both plans render %q", tmpl.Name(), na)
		}
	}
}

func TestPolicyName_NoCollisionAcrossPlansAndTemplates(t *testing.T) {
	ids := []string{"a", "a-image", "a-all", "a.b", "a-b", "x-0123456789", "x", strings.Repeat("q", 63), strings.Repeat("q", 62)}
	seen := map[string]string{}
	for _, id := range ids {
		for _, tmpl := range Catalog() {
			n := PolicyName(id, tmpl.Name())
			if prev, ok := seen[n]; ok {
				t.Errorf("%q is the name of %s and of %s/%s", n, prev, id, tmpl.Name())
			}
			seen[n] = id + "/" + tmpl.Name()
		}
	}
}

// No template's name ends with "-<another template's name>": otherwise plan
// "p-x" with template "y" and plan "p" with template "x-y" would meet.
func TestPolicyName_NoTemplateIsAnotherOnesSuffix(t *testing.T) {
	for _, a := range Catalog() {
		for _, b := range Catalog() {
			if a.Name() != b.Name() && strings.HasSuffix(a.Name(), "-"+b.Name()) {
				t.Errorf("template %s ends with -%s", a.Name(), b.Name())
			}
		}
	}
}
