package colgen

// Far reports whether g's next probes are marked far (SetFar), for the
// tests of the package colgen_test.
func (g *RobustMaster) Far() bool { return g.far }

// FailNextProbe makes g's next probe return err without solving, as an
// engine that stalls would.
func (g *RobustMaster) FailNextProbe(err error) { g.FailNextProbes(err, 1) }

// FailNextProbes makes g's next k probes return err without solving.
func (g *RobustMaster) FailNextProbes(err error, k int) { g.failNext, g.failCount = err, k }

// NoRootProof keeps g's searches from closing on the polished basis's
// duals, so that a test reaches the probes that such a closing saves.
func (g *RobustMaster) NoRootProof() { g.noRootProof = true }

// NoCentreProof keeps g's probes from proving with the stabilisation
// centre's duals, so that a test reaches the degenerate plateaus those
// proofs close.
func (g *RobustMaster) NoCentreProof() { g.noCentreProof = true }

// StallRounds is the flat pricing rounds after which g's next probe ends
// unsettled.
func (g *RobustMaster) StallRounds() int { return g.stallRounds() }

// SetStallRounds sets the flat pricing rounds after which g's next probes
// end unsettled, for the tests of the package colgen_test.
func (g *RobustMaster) SetStallRounds(k int) { g.setStallRounds(k) }

// Deciding reports whether g's next probes are deciding ones (SetDecide).
func (g *RobustMaster) Deciding() bool { return g.decide }

// Columns returns g's generated columns: each one's output, rows and
// entries, and the least mass over the set g recorded for it.
func (g *RobustMaster) Columns() (js []int, rows [][]int, vals [][]float64, mass []float64) {
	for _, c := range g.cols {
		js, rows, vals, mass = append(js, c.j), append(rows, c.rows), append(vals, c.vals), append(mass, c.mass)
	}
	return js, rows, vals, mass
}
