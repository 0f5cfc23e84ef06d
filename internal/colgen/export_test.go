package colgen

// Far reports whether g's next probes are marked far (SetFar), for the
// tests of the package colgen_test.
func (g *RobustMaster) Far() bool { return g.far }
