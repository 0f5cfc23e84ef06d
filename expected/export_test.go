package expected

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pmlopt/pmlopt/instance"
	"github.com/pmlopt/pmlopt/mech"
)

// CountingBinomial is the counting query on n letters with the
// binomial(n−1, p) prior, whose tails carry the tiny masses most of this
// package's tests are about. It is exported to the package's external
// tests only.
func CountingBinomial(t testing.TB, n int, p float64) (mech.Prior, mech.Utility) {
	t.Helper()
	u, err := instance.Counting(n)
	require.NoError(t, err)
	pi, err := instance.Binomial(n-1, p)
	require.NoError(t, err)
	return pi, u
}
