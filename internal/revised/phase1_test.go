package revised

import (
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pmlopt/pmlopt/lp"
)

// phase1RoundingLP is a covering LP with one cut row (colgen.SolveCuts on
// the 16×16 clustered grid of bench/gridworst): in phase 1 an entering
// column passes every breakpoint with no hard stop, and
// −|dq| plus the breakpoints' increments, summed in their order, comes to
// a few ulps below zero.
const phase1RoundingLP = `NAME
ROWS
 N  obj
 G  R0
 G  R1
 G  R2
 G  R3
 G  R4
 G  R5
 G  R6
 G  R7
 G  R8
 G  R9
 G  R10
COLUMNS
    C0  obj  1
    C0  R0  1
    C0  R3  1
    C1  obj  1
    C1  R1  1
    C1  R2  1
    C2  obj  1
    C2  R6  1
    C2  R7  1
    C2  R8  1
    C2  R9  1
    C3  obj  1
    C3  R4  1
    C3  R5  1
    C3  R10  1
    C4  obj  1
    C4  R4  1
    C4  R5  1
    C4  R10  1
    C5  obj  1
    C5  R4  1
    C5  R7  1
    C5  R10  0.6828543111998844
    C6  obj  1
    C6  R7  1
    C6  R10  0.6541129831522838
    C7  obj  1
    C7  R7  1
    C7  R10  0.5193260654118133
    C8  obj  1
    C8  R4  1
    C8  R7  1
    C8  R9  1
    C8  R10  0.3488602576812181
    C9  obj  1
    C9  R6  1
    C9  R7  1
    C9  R10  0.29236868186352083
    C10  obj  1
    C10  R3  1
    C10  R4  1
    C10  R10  0.10109018830535296
    C11  obj  1
    C11  R3  1
    C11  R4  1
    C11  R10  0.05104063429142821
    C12  obj  1
    C12  R3  1
    C12  R4  1
    C12  R10  0.05104063429142821
    C13  obj  1
    C13  R3  1
    C13  R4  1
    C13  R8  1
    C13  R9  1
    C13  R10  0.05104063429142821
RHS
    RHS  R0  1
    RHS  R1  1
    RHS  R2  1
    RHS  R3  1
    RHS  R4  1
    RHS  R5  1
    RHS  R6  1
    RHS  R7  1
    RHS  R8  1
    RHS  R9  1
    RHS  R10  1.8632309217065055
BOUNDS
ENDATA
`

// TestPhase1SlopeRounding: a phase 1 pass whose slope stays a rounding
// below zero past its last breakpoint is a step to that breakpoint, not a
// ray ("numerical trouble"); the optimum is gonum's, with the duals of an
// optimal basis.
func TestPhase1SlopeRounding(t *testing.T) {
	m, err := lp.ReadMPS(strings.NewReader(phase1RoundingLP))
	require.NoError(t, err)
	r, err := Solve(m, nil)
	require.NoError(t, err)
	require.Equal(t, lp.Optimal, r.Status)
	checkOptimal(t, m, r, 1e-9)
	st, obj := gonumSolve(m)
	require.Equal(t, lp.Optimal, st)
	require.InDelta(t, obj, r.Objective, 1e-9*(1+math.Abs(obj)))
}
