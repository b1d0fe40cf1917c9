// promql-check parses PromQL expressions with Prometheus' own parser, for the chart's tests: the alert rules and the
// dashboard's queries must be expressions Prometheus (and the Prometheus Operator's admission webhook) accepts.
// Reads a JSON array of expressions on standard input; writes a JSON array of the same length: "" for an expression
// that parses, else the parser's error.
package main

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/prometheus/prometheus/promql/parser"
)

func main() {
	var exprs []string
	if err := json.NewDecoder(os.Stdin).Decode(&exprs); err != nil {
		fmt.Fprintf(os.Stderr, "promql-check: standard input is not a JSON array of strings: %v\n", err)
		os.Exit(2)
	}
	p := parser.NewParser(parser.Options{})
	problems := make([]string, len(exprs))
	for i, expr := range exprs {
		if _, err := p.ParseExpr(expr); err != nil {
			problems[i] = err.Error()
		}
	}
	if err := json.NewEncoder(os.Stdout).Encode(problems); err != nil {
		fmt.Fprintf(os.Stderr, "promql-check: %v\n", err)
		os.Exit(1)
	}
}
