package store_test

import (
	"errors"
	"fmt"
	"os"

	"github.com/telark/protectionplans/examples/internal/store"
	"github.com/telark/protectionplans/report"
	"github.com/telark/protectionplans/violations"
)

// A plan's ledger and health samples, and a ledger truncated by a crash
// recovered from its previous generation.
func Example() {
	dir, err := os.MkdirTemp("", "reports")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	s := store.New(dir, store.OnRecovered(func(planID, file string, _ error) {
		fmt.Println("recovered", planID, file)
	}))

	l := violations.NewLedger("freeze").Merge([]violations.Violation{{Key: "a", Plan: "freeze"}})
	wrote, _ := s.SaveLedger("freeze", l)
	again, _ := s.SaveLedger("freeze", l)
	fmt.Println("wrote:", wrote, again)
	_ = s.AppendSample("freeze", report.HealthSample{Healthy: true})

	// A crash that lost the end of the ledger.
	_ = os.WriteFile(dir+"/freeze/"+store.LedgerFile, []byte(`{"vers`), 0o644)
	got, err := s.LoadLedger("freeze")
	fmt.Println(len(got.Violations), err)

	_, err = s.LoadLedger("../etc")
	fmt.Println(errors.Is(err, store.ErrPlanID))
	// Output:
	// wrote: true false
	// recovered freeze ledger.json
	// 1 <nil>
	// true
}
