package colgen

// Far reports whether g's next probes are marked far (SetFar), for the
// tests of the package colgen_test.
func (g *RobustMaster) Far() bool { return g.far }

// FailNextProbe makes g's next probe return err without solving, as an
// engine that stalls would.
func (g *RobustMaster) FailNextProbe(err error) { g.failNext = err }
