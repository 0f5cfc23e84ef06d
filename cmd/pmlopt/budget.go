package main

import (
	"fmt"

	"github.com/pmlopt/pmlopt/certify"
	"github.com/pmlopt/pmlopt/internal/jsonout"
	"github.com/pmlopt/pmlopt/leakage"
	"github.com/pmlopt/pmlopt/mech"
)

// verdict is how a mechanism measures against a privacy budget.
type verdict struct {
	Budget mech.Budget
	// Level is the mechanism's level of the budget's measure (ε_u for
	// ALIP; Lower holds its ε_l).
	Level, Lower float64
	// Excess is how far the mechanism exceeds the budget: the larger of
	// level − ε and, for ALIP, ε_l-level − ε_l; negative or 0 within it.
	Excess float64
	// OverSet reports levels taken over a problem's prior set (never
	// for LDP, which is the same at every prior).
	OverSet bool
}

// within reports whether the mechanism keeps the budget. A mechanism may
// exceed it by certify.AuditTol, the slack pmlopt's own solvers are
// audited with, so that every mechanism solve writes reads back within
// its budget.
func (v verdict) within() bool { return v.Excess <= certify.AuditTol }

// judge measures m over pi against b.
func judge(pi mech.Prior, m mech.Mechanism, b mech.Budget) verdict {
	v := verdict{Budget: b}
	v.Level, v.Lower, v.Excess = leakage.Level(pi, m, b)
	return v
}

// String is the verdict in words, for reports.
func (v verdict) String() string {
	var level string
	if v.Budget.Measure == mech.ALIP {
		level = fmt.Sprintf("(ε_l, ε_u) = (%s, %s)", num(v.Lower), num(v.Level))
	} else {
		level = fmt.Sprintf("%s %s", v.Budget.Measure, num(v.Level))
	}
	if v.OverSet {
		level += " over the prior set"
	}
	// The budget in the words of compare's budget row, "pml ε = 1".
	if v.within() {
		return fmt.Sprintf("within budget: %s against the budget %s", level, budgetString(&v.Budget))
	}
	return fmt.Sprintf("exceeds the budget by %s nats: %s against the budget %s", num(v.Excess), level, budgetString(&v.Budget))
}

// overBudget is the error of a command whose mechanism breaks its file's
// budget; the command exits with exitBudget.
// hint, if not empty, says how to go on anyway.
type overBudget struct {
	v    verdict
	hint string
}

func (o *overBudget) Error() string { return "the mechanism " + o.v.String() + o.hint }

// budgetJSON is a privacy budget in the keys of a problem file's privacy
// block.
type budgetJSON = jsonout.Budget

func toBudgetJSON(b mech.Budget) budgetJSON { return jsonout.BudgetOf(b) }

// exportJSON is what export --json writes.
type exportJSON struct {
	File     string     `json:"file"`
	Rows     int        `json:"rows"`
	Columns  int        `json:"columns"`
	Nonzeros int        `json:"nonzeros"`
	Privacy  budgetJSON `json:"privacy"`
}
