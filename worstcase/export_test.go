package worstcase

import (
	"context"

	"github.com/pmlopt/pmlopt/internal/colgen"
	"github.com/pmlopt/pmlopt/internal/ipm"
	"github.com/pmlopt/pmlopt/mech"
)

// hooks are engines for tests (leastEpsilon, prober.eng): master and ipm,
// when not nil, replace (*colgen.Master).Probe and ipm.Probe, so that a
// test can make the master stall or tail and the interior point fail; a
// nil one leaves that engine as it is.
type hooks struct {
	master func(*colgen.Master, float64) (*colgen.Result, error)
	ipm    func(mech.Prior, mech.Pattern, float64) (*ipm.ProbeResult, error)
}

func (h hooks) probeMaster(m *colgen.Master, t float64) (*colgen.Result, error) {
	if h.master != nil {
		return h.master(m, t)
	}
	return goEngines{}.probeMaster(m, t)
}

func (h hooks) probeIPM(ctx context.Context, pi mech.Prior, pat mech.Pattern, t float64, workers int) (*ipm.ProbeResult, error) {
	if h.ipm != nil {
		return h.ipm(pi, pat, t)
	}
	return goEngines{}.probeIPM(ctx, pi, pat, t, workers)
}
