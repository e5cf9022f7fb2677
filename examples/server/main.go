// Command protectionplans-server serves the Protection plans API and its
// dashboard over net/http: the plans are ProtectionPlan objects in the
// cluster, the lifecycle runs in the operator (examples/operator), and the
// server validates, authorises and writes, with the library deciding
// everything. See README.md.
//
//	go run ./server --roles server/testdata/roles.yaml --release-namespace telark-system --reports-dir /var/lib/protectionplans
package main

import "os"

func main() {
	os.Exit(run(os.Args[1:], os.Stderr))
}
