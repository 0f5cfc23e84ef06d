package leakage

import (
	"context"
	"errors"
	"fmt"

	"github.com/pmlopt/pmlopt/internal/decimal"
	"github.com/pmlopt/pmlopt/mech"
)

// Report holds every measure of a (prior, mechanism) pair, named after the
// keys of the audit JSON (docs/cli.md, JSON output). Per-output slices have one entry per
// output; unused outputs (Marginal[j] = 0) hold −Inf there.
type Report struct {
	PML                         float64   `json:"pml"`
	PMLPerOutput                []float64 `json:"pml_per_output"`
	PMC                         float64   `json:"pmc"`
	PMCPerOutput                []float64 `json:"pmc_per_output"`
	ALIPLower                   float64   `json:"alip_lower"`
	ALIPUpper                   float64   `json:"alip_upper"`
	LIP                         float64   `json:"lip"`
	LDP                         float64   `json:"ldp"`
	Lift                        float64   `json:"lift"`
	BayesCapacity               float64   `json:"bayes_capacity"`
	MaximalLeakage              float64   `json:"maximal_leakage"`
	PosteriorBayesVulnerability float64   `json:"posterior_bayes_vulnerability"`
	BayesLeakage                float64   `json:"bayes_leakage"`
	MaximalAlphaLeakage         float64   `json:"maximal_alpha_leakage"`
	MaximalAlphaBetaLeakage     float64   `json:"maximal_alpha_beta_leakage"`
	// MaximalAlphaLeakageUpper and MaximalAlphaBetaLeakageUpper are the
	// certified upper ends of the brackets whose lower ends are the two
	// fields above; they differ from them by more than 1e-7 only when the
	// optimisation could not certify the value, which Notes then says.
	MaximalAlphaLeakageUpper     float64   `json:"maximal_alpha_leakage_upper"`
	MaximalAlphaBetaLeakageUpper float64   `json:"maximal_alpha_beta_leakage_upper"`
	Notes                        []string  `json:"notes,omitempty"`
	LRDP                         float64   `json:"lrdp"` // of order Alpha
	Alpha                        float64   `json:"alpha"`
	Beta                         float64   `json:"beta"`
	Marginal                     []float64 `json:"marginal"` // q_j
}

// Audit computes every measure of docs/theory.md §2 for (pi, p): maximal α-leakage and
// LRDP of order alpha, maximal (α,β)-leakage of orders (alpha, beta).
// It is AuditContext with a context that is never done.
func Audit(pi mech.Prior, p mech.Mechanism, alpha, beta float64) (Report, error) {
	return AuditContext(context.Background(), pi, p, alpha, beta)
}

// AuditContext is Audit, returning ctx's error when ctx is done before the
// maximisations of α- and (α,β)-leakage end.
//
// It returns an error if pi is not a prior or p not a mechanism
// (mech.NewPrior, mech.NewMechanism: ragged rows, NaN or negative
// entries, rows not summing to 1), their dimensions differ, alpha is NaN
// or ≤ 1, or beta is NaN or < 1. A maximisation that can not be certified
// is no error: the report holds its certified bracket and a note.
func AuditContext(ctx context.Context, pi mech.Prior, p mech.Mechanism, alpha, beta float64) (Report, error) {
	if err := checkContext(ctx); err != nil {
		return Report{}, err
	}
	if _, err := mech.NewPrior(pi); err != nil {
		return Report{}, err
	}
	if _, err := mech.NewMechanism(p); err != nil {
		return Report{}, err
	}
	if err := checkAlpha(alpha); err != nil {
		return Report{}, err
	}
	if err := checkBeta(beta); err != nil {
		return Report{}, err
	}
	if err := checkDims(pi, p); err != nil {
		return Report{}, err
	}
	r := Report{
		PMLPerOutput: PMLPerOutput(pi, p),
		PMCPerOutput: PMCPerOutput(pi, p),
		Alpha:        alpha,
		Beta:         beta,
		Marginal:     p.Marginal(pi),
	}
	for _, v := range r.PMLPerOutput {
		r.PML = max(r.PML, v)
	}
	for _, v := range r.PMCPerOutput {
		r.PMC = max(r.PMC, v)
	}
	r.ALIPLower, r.ALIPUpper = r.PMC, r.PML
	r.LIP = max(r.PMC, r.PML)
	r.LDP = LDP(pi, p)
	r.Lift = Lift(pi, p)
	r.BayesCapacity = BayesCapacity(pi, p)
	r.MaximalLeakage = MaximalLeakage(pi, p)
	r.PosteriorBayesVulnerability = PosteriorBayesVulnerability(pi, p)
	r.BayesLeakage = BayesLeakage(pi, p)
	var err error
	r.MaximalAlphaLeakage, r.MaximalAlphaLeakageUpper, err = alphaBetaBounds(ctx, pi, p, alpha, 1)
	if err = r.note("maximal α-leakage", r.MaximalAlphaLeakage, r.MaximalAlphaLeakageUpper, err); err != nil {
		return Report{}, err
	}
	if beta == 1 {
		// (α,1)-leakage is α-leakage (Gilani et al. (2022), Thm 1 with β = 1).
		r.MaximalAlphaBetaLeakage, r.MaximalAlphaBetaLeakageUpper = r.MaximalAlphaLeakage, r.MaximalAlphaLeakageUpper
	} else {
		r.MaximalAlphaBetaLeakage, r.MaximalAlphaBetaLeakageUpper, err = alphaBetaBounds(ctx, pi, p, alpha, beta)
		if err = r.note("maximal (α,β)-leakage", r.MaximalAlphaBetaLeakage, r.MaximalAlphaBetaLeakageUpper, err); err != nil {
			return Report{}, err
		}
	}
	if r.LRDP, err = LRDP(p, alpha); err != nil {
		return Report{}, err
	}
	return r, nil
}

// note records in r a measure that could not be certified, and passes on
// every other error.
func (r *Report) note(what string, lower, upper float64, err error) error {
	var nc *errNotCertified
	if errors.As(err, &nc) {
		r.Notes = append(r.Notes, fmt.Sprintf("%s not certified: it lies in [%s, %s]; the lower end is reported", what, decimal.Down(lower, 12), decimal.Up(upper, 12)))
		return nil
	}
	return err
}

// checkContext refuses a nil context, which would crash the workers that
// watch it, and a context already done, before any work starts.
func checkContext(ctx context.Context) error {
	if ctx == nil {
		return errors.New("leakage: nil context (pass context.Background())")
	}
	return ctx.Err()
}
