package violations

import (
	"strings"
	"testing"
)

func TestRecordRequester(t *testing.T) {
	cases := map[string]struct{ message, want string }{
		"kyverno's record names the requester in base64": {
			message: "exempt requester base64:Y2Fyb2w= admitted by protection plan Break-glass: scaling", want: "carol"},
		"the CEL targets name him plainly": {
			message: "exempt requester system:serviceaccount:ci:deploy admitted by protection plan Freeze: deleting resources", want: "system:serviceaccount:ci:deploy"},
		"a refusal names nobody": {
			message: "scaling is frozen by protection plan Freeze until canceled"},
		"an audit names nobody": {
			message: "would be blocked by protection plan Freeze: scaling"},
		"base64 that is not is no name": {
			message: "exempt requester base64:!!! admitted by protection plan X: scaling"},
		"a name with a line break is one line": {
			message: "exempt requester base64:ZXZlCm1hbGxvcnk= admitted by protection plan X: scaling", want: "evemallory"},
		"a name with the infix in it stops at the first": {
			message: "exempt requester a admitted by protection plan b admitted by protection plan X: y", want: "a"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := RecordRequester(tc.message); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
	long := "exempt requester " + strings.Repeat("x", 300) + " admitted by protection plan X: y"
	if got := RecordRequester(long); len([]rune(got)) != 257 {
		t.Errorf("a 300-character name is kept at %d characters", len([]rune(got)))
	}
}
