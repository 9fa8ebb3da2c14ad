package main

import (
	"fmt"

	"github.com/agui-mock/agui-mock/scenarios"
)

// faultKindSchema is the schema's definition of a fault step's kind; its fields are in
// the order the schema file writes them.
type faultKindSchema struct {
	Title            string   `json:"title"`
	Description      string   `json:"description"`
	Enum             []string `json:"enum"`
	EnumDescriptions []string `json:"enumDescriptions"`
	ErrorMessage     string   `json:"errorMessage"`
}

// rewriteFaultKinds replaces the schema's faultKind definition by the table's step
// kinds.
func rewriteFaultKinds(schema []byte, table []scenarios.FaultKind) ([]byte, error) {
	var steps, requests []string
	def := faultKindSchema{Title: "fault kind"}
	for _, k := range table {
		if k.RequestOnly() {
			requests = append(requests, k.Name)
			continue
		}
		steps = append(steps, k.Name)
		def.Enum = append(def.Enum, k.Name)
		def.EnumDescriptions = append(def.EnumDescriptions, k.Does)
	}
	def.Description = fmt.Sprintf("How the stream breaks: %s (each described in enumDescriptions). The request-wide faults %s are not scenario steps: ask for them per request with the X-Agui-Mock-Fault header or the admin API. Taken literally: no templates.",
		words(steps, "or"), words(requests, "and"))
	def.ErrorMessage = fmt.Sprintf("In a scenario a fault is %s. %s apply to a whole request: use the X-Agui-Mock-Fault header or the admin API.",
		words(steps, "or"), words(requests, "and"))
	return replaceValue(schema, def, "$defs", "faultKind")
}
