package instance

import (
	"fmt"
	"math/rand/v2"

	"github.com/pmlopt/pmlopt/mech"
)

// Instance is one problem: a prior on N inputs and an N×M utility.
type Instance struct {
	Family  string
	Prior   mech.Prior
	Utility mech.Utility
}

// Order returns the utility order of the instance's utility.
func (in Instance) Order() mech.Order { return in.Utility.Order() }

// Family is a named generator of instances with n inputs. Seed matters only
// to the families that draw at random (Random reports which).
type Family struct {
	Name   string
	Doc    string // prior and utility, one line
	Random bool   // whether the instances depend on the seed
	new    func(n int, rng *rand.Rand) (mech.Prior, mech.Utility, error)
}

// New returns the family's instance with n inputs. A random family draws
// from a PCG generator seeded with (seed, n), so that each size has its
// own stream and the same seed gives the same instance.
func (f Family) New(n int, seed uint64) (Instance, error) {
	if f.new == nil {
		return Instance{}, fmt.Errorf("instance: family %q has no generator (use Families or Lookup)", f.Name)
	}
	if n < 2 {
		return Instance{}, fmt.Errorf("instance: %s: %d letters, want at least 2", f.Name, n)
	}
	pi, u, err := f.new(n, rand.New(rand.NewPCG(seed, uint64(n))))
	if err != nil {
		return Instance{}, fmt.Errorf("instance: %s at n = %d: %w", f.Name, n, err)
	}
	return Instance{Family: f.Name, Prior: pi, Utility: u}, nil
}

// Parameters of the families.
const (
	binomialP     = 0.3 // counting-binomial: binomial(n−1, 0.3), masses down to about 1e-33 at n = 64
	zipfS         = 1   // abs-zipf
	geometricR    = 0.9 // square-geometric
	bandWidth     = 4   // bands: −⌊|x−y|/4⌋
	coarseFactor  = 4   // coarse: M = N/4 buckets
	fineFactor    = 2   // fine: M = 2N buckets
	dirichletRand = 1   // random and counting-dirichlet: the flat Dirichlet(1)
)

// Families returns every family, the random one first: the instances that
// tests and the bench iterate over.
func Families() []Family {
	return []Family{
		{Name: "random", Doc: "Dirichlet(1) prior, utilities uniform on [0,1) (uniformly random orders)", Random: true,
			new: func(n int, rng *rand.Rand) (mech.Prior, mech.Utility, error) {
				pi, err := Dirichlet(rng, n, dirichletRand)
				if err != nil {
					return nil, nil, err
				}
				u, err := Random(rng, n, n)
				return pi, u, err
			}},
		{Name: "counting-uniform", Doc: "counting query −(x−y)² − [y<x], uniform prior",
			new: fixed(Uniform, Counting)},
		{Name: "counting-binomial", Doc: fmt.Sprintf("counting query, binomial(N−1, %g) prior", binomialP),
			new: fixed(func(n int) (mech.Prior, error) { return Binomial(n-1, binomialP) }, Counting)},
		{Name: "counting-dirichlet", Doc: "counting query, Dirichlet(1) prior", Random: true,
			new: func(n int, rng *rand.Rand) (mech.Prior, mech.Utility, error) {
				pi, err := Dirichlet(rng, n, dirichletRand)
				if err != nil {
					return nil, nil, err
				}
				u, err := Counting(n)
				return pi, u, err
			}},
		{Name: "abs-uniform", Doc: "line loss −|x−y|, uniform prior", new: fixed(Uniform, AbsLoss)},
		{Name: "abs-zipf", Doc: fmt.Sprintf("line loss −|x−y|, Zipf(%g) prior", float64(zipfS)),
			new: fixed(func(n int) (mech.Prior, error) { return Zipf(n, zipfS) }, AbsLoss)},
		{Name: "square-geometric", Doc: fmt.Sprintf("line loss −(x−y)², geometric(%g) prior", geometricR),
			new: fixed(func(n int) (mech.Prior, error) { return Geometric(n, geometricR) }, SquareLoss)},
		{Name: "hamming", Doc: "Hamming utility (0 on the diagonal, −1 off it), uniform prior", new: fixed(Uniform, Hamming)},
		{Name: "grid", Doc: "W×H grid (the squarest with N cells), Euclidean loss, uniform prior",
			new: fixed(Uniform, func(n int) (mech.Utility, error) { return Grid(GridSides(n)) })},
		{Name: "bands", Doc: fmt.Sprintf("integer loss −⌊|x−y|/%d⌋ (many ties), uniform prior", bandWidth),
			new: fixed(Uniform, func(n int) (mech.Utility, error) { return Bands(n, bandWidth) })},
		{Name: "coarse", Doc: fmt.Sprintf("N inputs released as M = N/%d buckets, loss −|(2x+1)M − (2y+1)N|, uniform prior", coarseFactor),
			new: fixed(Uniform, func(n int) (mech.Utility, error) { return Buckets(n, max(2, n/coarseFactor)) })},
		{Name: "fine", Doc: fmt.Sprintf("N inputs released as M = %dN buckets, loss −|(2x+1)M − (2y+1)N|, uniform prior", fineFactor),
			new: fixed(Uniform, func(n int) (mech.Utility, error) { return Buckets(n, fineFactor*n) })},
	}
}

// fixed makes a deterministic family from a prior and a utility of n
// letters.
func fixed(prior func(n int) (mech.Prior, error), util func(n int) (mech.Utility, error)) func(int, *rand.Rand) (mech.Prior, mech.Utility, error) {
	return func(n int, _ *rand.Rand) (mech.Prior, mech.Utility, error) {
		pi, err := prior(n)
		if err != nil {
			return nil, nil, err
		}
		u, err := util(n)
		return pi, u, err
	}
}

// Lookup returns the family called name.
func Lookup(name string) (Family, error) {
	var names []string
	for _, f := range Families() {
		if f.Name == name {
			return f, nil
		}
		names = append(names, f.Name)
	}
	return Family{}, fmt.Errorf("instance: unknown family %q (want one of %v)", name, names)
}
