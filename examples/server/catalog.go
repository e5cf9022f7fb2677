package main

import (
	"net/http"

	"github.com/telark/protectionplans/plan"
	"github.com/telark/protectionplans/render"
)

type templateList struct {
	Items []plan.TemplateInfo `json:"items"`
}

// listTemplates serves the fixed catalog (R-R1), for a template picker.
func (s *Server) listTemplates(w http.ResponseWriter, _ *http.Request) {
	var out templateList
	for _, t := range render.Catalog() {
		out.Items = append(out.Items, t.Info())
	}
	writeJSON(w, http.StatusOK, out)
}
