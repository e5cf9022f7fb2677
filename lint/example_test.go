package lint_test

import (
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/telark/protectionplans/lint"
	"github.com/telark/protectionplans/plan"
	"github.com/telark/protectionplans/window"
)

func Example() {
	nightly := &plan.ProtectionPlan{ObjectMeta: metav1.ObjectMeta{Name: "nightly"}, Spec: plan.Spec{
		Scope:     plan.Scope{Namespaces: []string{"shop"}},
		Templates: []plan.TemplateRef{{Name: "image-change"}},
		Window: window.Spec{Type: window.Recurring, TimeZone: "Europe/Berlin",
			Schedules: []window.Schedule{{Cron: "30 2 * * *", Duration: "4h"}, {Cron: "0 0 31 2 *", Duration: "1h"}}},
	}}
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	findings := lint.Lint([]*plan.ProtectionPlan{nightly}, now)
	for _, f := range findings {
		fmt.Println(f.Severity, f.Code, f.Fields[0].Path)
	}
	fmt.Println("errors:", lint.Errors(findings))
	// Output:
	// error CronNeverFires spec.window.schedules[1].cron
	// warning StartInSkippedHour spec.window.schedules[0].cron
	// info StartInRepeatedHour spec.window.schedules[0].cron
	// errors: true
}
