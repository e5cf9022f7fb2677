package install

import (
	"strings"
	"testing"
)

// TestChartLayout: the chart tells the operator and the server the same
// layout, explicitly both ways, compact by default (issue 25: the compact
// layout is the operator's default; the server's health refresh renders
// what the operator applies).
func TestChartLayout(t *testing.T) {
	tests := []struct {
		name   string
		values map[string]any
		want   string
	}{
		{name: "by default the operator and the server run the compact layout", values: nil, want: "- --compact=true"},
		{name: "layout standard runs both with one policy per template", values: map[string]any{"layout": "standard"}, want: "- --compact=false"},
		{name: "layout compact runs both compact", values: map[string]any{"layout": "compact"}, want: "- --compact=true"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := renderChart(tt.values)
			if err != nil {
				t.Fatal(err)
			}
			if n := strings.Count(got, "--compact"); n != 2 || strings.Count(got, tt.want) != 2 {
				t.Errorf("%d --compact arguments, %d of them %q; want the operator's and the server's", n, strings.Count(got, tt.want), tt.want)
			}
		})
	}
}
