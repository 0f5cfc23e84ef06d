package expected

import (
	"github.com/pmlopt/pmlopt/internal/clean"
	"github.com/pmlopt/pmlopt/mech"
)

// DustFree returns r with its mechanism replaced by the copy without dust
// (clean.DustFree: no entry below certify.DustEntry) when that copy audits
// within b and keeps every zero of pat (nil: no pattern to keep), with the
// copy's audited levels and its expected utility under u; r as it is
// otherwise. Bound and Alpha stay: they bound the optimum, not r's
// mechanism.
func DustFree(pi mech.Prior, u mech.Utility, b mech.Budget, r Result, pat mech.Pattern) Result {
	m, rep, ok := clean.DustFree(pi, r.Mechanism, b)
	if !ok || (pat != nil && !pat.Holds(m)) {
		return r
	}
	r.Mechanism, r.Epsilon, r.ALIPLower, r.Value = m, rep.Level, rep.ALIPLower, u.ExpectedUtility(pi, m)
	return r
}
