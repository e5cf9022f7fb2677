package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/telark/protectionplans/render"
)

// kindNames are the kinds a kinds parameter allows, in catalog order.
var kindNames = func() []string {
	t, _ := render.Lookup("create")
	p, _ := t.Info().Parameter("kinds")
	return p.Values
}()

// Usage errors exit 2, invalid plans 1; each says what is wrong on one
// line of standard error and prints nothing on standard output.
func TestErrors_ExitCodesAndOneLine(t *testing.T) {
	cases := []struct {
		name   string
		args   []string
		code   int
		stderr string
	}{
		{"an unknown command is a usage error",
			[]string{"frobnicate"}, 2,
			"protectctl: unknown command \"frobnicate\" for \"protectctl\" (see protectctl --help)\n"},
		{"an unknown flag is a usage error",
			[]string{"render", "-f", holiday, "--tagret", "vap"}, 2,
			"protectctl: protectctl render: unknown flag: --tagret (see protectctl render --help)\n"},
		{"a missing -f is a usage error",
			[]string{"validate"}, 2,
			"protectctl: required flag(s) \"filename\" not set (see protectctl validate --help)\n"},
		{"a stray argument is a usage error",
			[]string{"validate", "-f", holiday, "extra"}, 2,
			"protectctl: unknown command \"extra\" for \"protectctl validate\" (see protectctl validate --help)\n"},
		{"a --now that is neither RFC 3339 nor a date is a usage error",
			[]string{"render", "-f", holiday, "--now", "tomorrow"}, 2,
			"protectctl: --now: Invalid value: \"tomorrow\": is neither an RFC 3339 time (2026-12-25T12:00:00+01:00) nor a date (2026-12-25, midnight UTC)\n"},
		{"a --from that is neither RFC 3339 nor a date is a usage error",
			[]string{"windows", "-f", holiday, "--from", "2026-12-25 12:00"}, 2,
			"protectctl: --from: Invalid value: \"2026-12-25 12:00\": is neither an RFC 3339 time (2026-12-25T12:00:00+01:00) nor a date (2026-12-25, midnight UTC)\n"},
		{"an unknown output format is a usage error",
			[]string{"templates", "-o", "xml"}, 2,
			"protectctl: -o \"xml\": want one of table, yaml, json, name\n"},
		{"-o name where nothing has a name is a usage error",
			[]string{"windows", "-f", holiday, "-o", "name"}, 2,
			"protectctl: -o \"name\": want one of table, yaml, json\n"},
		{"report's -o is its format, not its file",
			[]string{"report", "-f", holiday, "--ledger", ledger, "-o", "holiday.html"}, 2,
			"protectctl: -o \"holiday.html\": want html, md, json or csv (the report's file is --output-file)\n"},
		{"a file that does not exist is a usage error",
			[]string{"validate", "-f", "testdata/nope.yaml"}, 2,
			"protectctl: testdata/nope.yaml: no such file or directory\n"},
		{"an unknown target is a usage error",
			[]string{"render", "-f", holiday, "--target", "opa", "--now", "2026-12-25T12:00:00+01:00"}, 2,
			"protectctl: --target opa: unknown render target \"opa\" (known: kyverno, kyverno-cel, vap); supported: kyverno, kyverno-cel, vap\n"},
		{"explain refuses an unknown target too",
			[]string{"explain", "-f", holiday, "--target", "opa", "--request", requests + "delete-deployment.yaml"}, 2,
			"protectctl: --target opa: unknown render target \"opa\" (known: kyverno, kyverno-cel, vap); supported: kyverno, kyverno-cel, vap\n"},
		{"an applications scope needs --cluster",
			[]string{"render", "-f", nightly, "--now", "2026-11-30T23:00:00+01:00"}, 2,
			"protectctl: ../plans/nightly-image-freeze.yaml: the plan's scope is applications (checkout): give --cluster SNAPSHOT.yaml to resolve them\n"},
		{"--namespaces does not resolve applications",
			[]string{"explain", "-f", nightly, "--namespaces", "shop", "--request", requests + "review-image-change.json"}, 2,
			"protectctl: ../plans/nightly-image-freeze.yaml: the plan's scope is applications (checkout): give --cluster SNAPSHOT.yaml to resolve them\n"},
		{"--cluster and --namespaces together are a usage error",
			[]string{"render", "-f", holiday, "--cluster", cluster, "--namespaces", "shop"}, 2,
			"protectctl: --cluster and --namespaces: give one of them\n"},
		{"a snapshot with an unknown field is a usage error",
			[]string{"validate", "-f", holiday, "--cluster", "testdata/bad-cluster.yaml"}, 2,
			"protectctl: --cluster testdata/bad-cluster.yaml: namespacez: unknown field (400)\n"},
		{"unknown fields make the plan invalid, with their paths",
			[]string{"render", "-f", "testdata/unknown-fields.yaml", "--now", "2026-12-25T12:00:00+01:00"}, 1,
			"protectctl: testdata/unknown-fields.yaml: spec.scope.namespace: unknown field; spec.templates[0].parms: unknown field (400)\n"},
		{"a plan invalid against the cluster is not rendered",
			[]string{"render", "-f", holiday, "--namespaces", "shop", "--now", "2026-12-25T12:00:00+01:00"}, 1,
			"protectctl: ../plans/holiday-freeze.yaml: spec.scope.namespaces[1]: Not found: \"payments\": no such namespace in the cluster (400)\n"},
		{"a request with an unknown field is a usage error",
			[]string{"explain", "-f", holiday, "--request", "testdata/bad-request.yaml"}, 2,
			"protectctl: --request testdata/bad-request.yaml: objekt: unknown field (400)\n"},
		{"a request without a user is a usage error",
			[]string{"explain", "-f", holiday, "--request", "testdata/no-user-request.yaml"}, 2,
			"protectctl: --request testdata/no-user-request.yaml: missing user\n"},
		{"explain needs --request",
			[]string{"explain", "-f", holiday}, 2,
			"protectctl: required flag(s) \"request\" not set (see protectctl explain --help)\n"},
		{"windows --from after --to is a usage error",
			[]string{"windows", "-f", holiday, "--from", "2026-12-01T00:00:00Z", "--to", "2026-11-01T00:00:00Z"}, 2,
			"protectctl: --from 2026-12-01T00:00:00Z is not before --to 2026-11-01T00:00:00Z\n"},
		{"a report of another plan's ledger is a usage error",
			[]string{"report", "-f", holiday, "--ledger", "testdata/other-plan.ledger.json"}, 2,
			"protectctl: --ledger: the ledger is plan \"black-friday\"'s, not \"holiday-freeze\"'s\n"},
		{"an unreadable ledger is a usage error",
			[]string{"report", "-f", holiday, "--ledger", "testdata/invalid.yaml"}, 2,
			"protectctl: --ledger testdata/invalid.yaml: invalid ledger: malformed: invalid character '#' looking for beginning of value (400)\n"},
		{"an unknown report format is a usage error",
			[]string{"report", "-f", holiday, "--ledger", ledger, "-o", "pdf"}, 2,
			"protectctl: -o \"pdf\": want html, md, json or csv (the report's file is --output-file)\n"},
		{"a report of a plan that has not started is refused",
			[]string{"report", "-f", holiday, "--ledger", ledger, "--now", "2026-12-01T09:00:00+01:00"}, 1,
			"protectctl: ../plans/holiday-freeze.yaml: no report: no manual report of plan holiday-freeze (scheduled): the plan is waiting for its window and has not started; a report is available once it has been active (409)\n"},
		{"a YAML syntax error says its line once (issue 17)",
			[]string{"render", "-f", "testdata/syntax.yaml"}, 1,
			"protectctl: testdata/syntax.yaml:9: did not find expected ',' or ']' (400)\n"},
		{"a stream's bad documents are each reported: values render would refuse, a malformed time by its field",
			[]string{"windows", "-f", "testdata/repo/freezes.yaml"}, 1,
			"protectctl: testdata/repo/freezes.yaml (document 2): spec.templates[0].parameters[kinds]: Unsupported value: \"{{ request.object }}\": supported values: \"" +
				strings.Join(kindNames, "\", \"") + "\" (400); spec.templates[1].parameters[direction]: Unsupported value: \"sideways\": supported values: \"any\", \"up\", \"down\" (400)\n" +
				"protectctl: testdata/repo/freezes.yaml (document 3): spec.window.endAt: \"tomorrow\" is not an RFC 3339 time, e.g. 2026-12-24T18:00:00+01:00; " +
				"spec.window.startAt: \"2026-12-24\" is not an RFC 3339 time, e.g. 2026-12-24T18:00:00+01:00 (400)\n"},
		{"a parameter key with a line break stays on one line, quoted",
			[]string{"render", "-f", "testdata/newline-key.yaml"}, 1,
			"protectctl: testdata/newline-key.yaml: spec.templates[0].parameters[\"kinds\\nmode: enforce\"]: Invalid value: \"kinds\\nmode: enforce\": " +
				"template create declares no parameter of this name (it declares: kinds) (400)\n"},
		{"render refuses an invalid plan with every problem on one line",
			[]string{"render", "-f", "testdata/invalid.yaml"}, 1,
			"protectctl: testdata/invalid.yaml: " +
				"metadata.name: Invalid value: \"Not_A_DNS_Label\": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?') (400); " +
				"spec.description: Invalid value: \"{{ request.object }}\": must not contain {{ or }} (400); " +
				"spec.scope.namespaces[4]: Invalid value: \"shop\": listed twice (first at spec.scope.namespaces[0]) (400); " +
				"spec.templates[1].parameters[speed]: Invalid value: \"speed\": template scaling declares no parameter of this name (it declares: direction) (400); " +
				"spec.templates[2].name: Invalid value: \"teleport\": no template of this name in the catalog (400); " +
				"spec.templates[3].name: Invalid value: \"image-change\": listed twice (first at spec.templates[0]) (400); " +
				"spec.mode: Unsupported value: \"freeze\": supported values: \"audit\", \"enforce\" (400)\n"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res := protectctl(t, "", tc.args...)
			if res.code != tc.code {
				t.Errorf("exit status %d, want %d", res.code, tc.code)
			}
			if res.stderr != tc.stderr {
				t.Errorf("stderr:\n got %q\nwant %q", res.stderr, tc.stderr)
			}
			if res.stdout != "" {
				t.Errorf("stdout: %q", res.stdout)
			}
		})
	}
}

func TestErrors_ICSFileThatCannotBeWritten(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "missing", "holiday.ics")
	res := protectctl(t, "", "windows", "-f", holiday, "--ics", dir)
	if res.code != 2 || res.stderr != "protectctl: --ics "+dir+": no such file or directory\n" {
		t.Errorf("exit status %d, stderr %q", res.code, res.stderr)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("stat: %v", err)
	}
}

// Issue 17: a 100,000-character value was quoted whole in the one-line
// error.
func TestErrors_ALongValueIsCut(t *testing.T) {
	plan, err := os.ReadFile("testdata/permanent.yaml")
	if err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("Q", 100000)
	file := filepath.Join(t.TempDir(), "long.yaml")
	body := strings.Replace(string(plan), "  - name: secret-edits\n", "  - name: create\n    parameters:\n      kinds: "+long+"\n", 1)
	if err := os.WriteFile(file, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	res := protectctl(t, "", "validate", "-f", file, "--now", "2026-11-01")
	want := file + `: spec.templates[0].parameters[kinds]: Unsupported value: "` + strings.Repeat("Q", 200) + `… (100000 characters)": supported values: `
	if res.code != 1 || !strings.HasPrefix(res.stdout, want) || len(res.stdout) > 1000 || strings.Count(res.stdout, "\n") != 1 {
		t.Errorf("exit status %d, stdout (%d bytes) %.400s", res.code, len(res.stdout), res.stdout)
	}
}
