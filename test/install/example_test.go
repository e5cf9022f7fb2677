package install

import (
	"fmt"
	"strings"
)

// The chart rendered with its defaults holds both Deployments.
func Example() {
	out, err := renderChart(nil)
	fmt.Println(err, strings.Count(out, "\nkind: Deployment\n"))
	// Output: <nil> 2
}
