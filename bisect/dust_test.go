package bisect

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pmlopt/pmlopt/certify"
	"github.com/pmlopt/pmlopt/instance"
	"github.com/pmlopt/pmlopt/mech"
)

// noDust fails when p has an entry strictly between 0 and
// certify.DustEntry.
func noDust(t *testing.T, p mech.Mechanism, what string) {
	t.Helper()
	for i, row := range p {
		for j, v := range row {
			require.False(t, v > 0 && v < certify.DustEntry, "%s: p[%d][%d] = %g is dust", what, i, j, v)
		}
	}
}

// The mechanisms the searches return carry no numerical dust: on the
// five-letter survey instance of the README (the column generation's
// polished point had entries near 6e-10 on an output of mass 4e-10) and
// on the value curve of a 12-letter line loss, every probe kind.
func TestSearchesReturnNoDust(t *testing.T) {
	pi := mech.Prior{0.225, 0.3, 0.275, 0.125, 0.075}
	u, err := instance.AbsLoss(5)
	require.NoError(t, err)
	for _, slv := range backends(t) {
		if slv.Name() == "gonum" {
			continue // gonum's Simplex can cycle on degenerate feasibility LPs
		}
		for _, kind := range []Probes{ProbesAuto, ProbesLP, ProbesIPM} {
			opt := Options{Solver: slv, Probes: kind}
			v, r, err := BestValue(context.Background(), pi, u, 1, opt)
			require.NoError(t, err)
			require.Equal(t, -1.0, v)
			noDust(t, r.Mechanism, slv.Name())
			audit(t, pi, u.Pattern(v), r, DefaultTol)

			pi12, err := instance.Zipf(12, 1.1)
			require.NoError(t, err)
			u12, err := instance.AbsLoss(12)
			require.NoError(t, err)
			pts, err := ValueCurve(context.Background(), pi12, u12, opt)
			require.NoError(t, err)
			for _, p := range pts {
				noDust(t, p.Mechanism, slv.Name())
				require.LessOrEqual(t, p.OptimalEpsilon-p.OptimalEpsilonLower, DefaultTol)
			}
		}
	}
}
