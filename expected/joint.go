package expected

import (
	"context"
	"errors"

	"github.com/pmlopt/pmlopt/mech"
	"github.com/pmlopt/pmlopt/worstcase"
)

// ErrBelowLeastEpsilon is Joint's error when the budget is below the least
// ε of the pattern: no mechanism within it keeps that worst case. The
// bracket Joint returns with it says where the least ε lies.
var ErrBelowLeastEpsilon = errors.New("expected: the budget is below the least ε of the zero pattern")

// Joint maximises the expected utility of u over the ε-PML mechanisms
// (b a PML budget) that are zero wherever pat is false, the joint objective
// of a worst case to keep and an expected utility. It first brackets the
// least ε of pat (worstcase.LeastEpsilon, certified from below by
// certify.DualBound) and refuses a budget below the bracket; between the
// ends of the bracket the patterned LP decides (ErrInfeasible there is
// the same refusal). It returns the LP's result and the bracket;
// ErrBelowLeastEpsilon with the bracket on a refusal. opt.Pattern is set
// to pat.
func Joint(ctx context.Context, pi mech.Prior, u mech.Utility, b mech.Budget, pat mech.Pattern, opt Options, search worstcase.Options) (Result, worstcase.Result, error) {
	// 1. The least ε of the pattern, certified from below.
	least, err := worstcase.LeastEpsilon(ctx, pi, pat, search)
	if err != nil {
		return Result{}, least, err
	}
	if b.Epsilon < least.OptimalEpsilonLower {
		return Result{}, least, ErrBelowLeastEpsilon
	}
	// 2. The expected-utility LP over the patterned polytope.
	opt.Pattern = pat
	r, err := Maximize(ctx, pi, u, b, opt)
	if errors.Is(err, ErrInfeasible) && b.Epsilon < least.OptimalEpsilon {
		return Result{}, least, ErrBelowLeastEpsilon
	}
	if err != nil {
		return Result{}, least, err
	}
	return r, least, nil
}
