package leakage

import (
	"math"

	"github.com/pmlopt/pmlopt/mech"
)

// Report holds every measure of a (prior, mechanism) pair, named after the
// keys of the audit JSON (README, JSON output). Per-output slices have one entry per
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
	LRDP                        float64   `json:"lrdp"` // of order Alpha
	Alpha                       float64   `json:"alpha"`
	Beta                        float64   `json:"beta"`
	Marginal                    []float64 `json:"marginal"` // q_j
}

// Audit computes every measure of docs/theory.md §2 for (pi, p): maximal α-leakage and
// LRDP of order alpha, maximal (α,β)-leakage of orders (alpha, beta).
//
// It returns an error if the dimensions of pi and p differ, alpha is NaN or
// ≤ 1, beta is NaN or < 1, or an optimisation cannot be certified. Prior and
// mechanism are otherwise assumed valid (mech.NewPrior, mech.NewMechanism).
func Audit(pi mech.Prior, p mech.Mechanism, alpha, beta float64) (Report, error) {
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
		r.PML = math.Max(r.PML, v)
	}
	for _, v := range r.PMCPerOutput {
		r.PMC = math.Max(r.PMC, v)
	}
	r.ALIPLower, r.ALIPUpper = r.PMC, r.PML
	r.LIP = math.Max(r.PMC, r.PML)
	r.LDP = LDP(pi, p)
	r.Lift = Lift(pi, p)
	r.BayesCapacity = BayesCapacity(pi, p)
	r.MaximalLeakage = MaximalLeakage(pi, p)
	r.PosteriorBayesVulnerability = PosteriorBayesVulnerability(pi, p)
	r.BayesLeakage = BayesLeakage(pi, p)
	var err error
	if r.MaximalAlphaLeakage, err = MaximalAlphaLeakage(pi, p, alpha); err != nil {
		return Report{}, err
	}
	if r.MaximalAlphaBetaLeakage, err = MaximalAlphaBetaLeakage(pi, p, alpha, beta); err != nil {
		return Report{}, err
	}
	if r.LRDP, err = LRDP(p, alpha); err != nil {
		return Report{}, err
	}
	return r, nil
}
