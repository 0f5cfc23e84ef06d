package ipm

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/pmlopt/pmlopt/certify"
	"github.com/pmlopt/pmlopt/leakage"
	"github.com/pmlopt/pmlopt/lp"
	"github.com/pmlopt/pmlopt/mech"
	"github.com/pmlopt/pmlopt/solver"
)

// ErrNoVertex is returned when the LP on the interior point's support does
// not give an audited mechanism within the certificate.
var ErrNoVertex = errors.New("ipm: no optimal vertex on the interior point's support")

// SolveVertex is Solve followed by CertifiedVertex: an optimal vertex of p with the
// certificate of the interior point, or of the vertex LP's multipliers
// where the interior point's fell short of the gap (rounding stops the
// iterations early on utilities of a wide range, such as the squared
// distances of a counting query). Its errors wrap ErrNotConverged when no
// certified vertex was found.
func SolveVertex(p Problem, opt Options) (*Result, error) {
	r, err := Solve(p, opt)
	if r == nil || (err != nil && !errors.Is(err, ErrNotConverged)) {
		return r, err
	}
	return CertifiedVertex(p, r, opt)
}

// CertifiedVertex is the second step of SolveVertex on r, a point Solve
// returned for p (certified or not): Vertex, stopped when opt's context
// ends, and accepted when certified within opt.Gap (AcceptedGap when 0).
// Its errors wrap ErrNotConverged when it finds no certified vertex.
func CertifiedVertex(p Problem, r *Result, opt Options) (*Result, error) {
	v, verr := vertex(opt.ctx(), p, r)
	if verr != nil {
		// No vertex: the caller's fallback for an uncertified solve
		// (the full LP) applies.
		return nil, errors.Join(ErrNotConverged, verr)
	}
	accept := opt.Gap
	if accept == 0 {
		accept = AcceptedGap
	}
	if v.Bound-v.Value > accept*max(1, math.Abs(v.Value)) {
		return v, ErrNotConverged
	}
	return v, nil
}

// Vertex turns r, an ε-PML point of p with its certificate (Solve's
// result, certified or not), into an optimal vertex of the LP of p: a
// mechanism with no entry below certify.DustEntry but 0, rows summing to 1, PML at
// most ε (at ε = 0 up to auditRounding), and an expected utility at least
// r's (within a relative valueSlack).
//
// An interior point lies inside the optimal face: every pair that some
// optimal vertex uses is positive there, and every cap that is tight on
// the whole face is tight there. So:
//
//  1. the face is read off r: the pairs used and the pairs at their cap,
//     by complementarity (Solve's last iterate), or else by thresholds on
//     the entries (supportEntry, capSlack), or else the pairs above
//     looseSupportEntry with no cap fixed;
//     a face with more than narrowFree·(N+M) free pairs (a massively
//     degenerate problem, such as the Hamming utility under a uniform
//     prior, whose optimal face is nearly the whole polytope) is first
//     narrowed to the capped pairs and the largest free entries of each
//     row (narrowFace), a fraction narrowKeep of them, then the whole
//     face: fixing more pairs at 0 still leaves a face of the polytope,
//     and step 3 rejects a narrowing that lost the optimum;
//  2. the LP of that face (faceLP: N + M rows and one per free pair) is
//     solved by the pure-Go revised simplex, at a budget a relative
//     budgetShrink inside ε; a face of the polytope has only vertices of
//     the polytope;
//  3. its vertex is read back, entries below certify.DustEntry set to 0 and rows
//     renormalised; it must meet the budget under leakage.PML and reach
//     r's value (a face read wrong falls short of it: the next reading of
//     step 1 is tried);
//  4. the bound is the lesser of r's and the one UpperBound proves from
//     the face LP's row multipliers (multipliers prove a bound on the
//     whole problem whichever LP they come from).
func Vertex(p Problem, r *Result) (*Result, error) {
	return vertex(context.Background(), p, r)
}

// vertex is Vertex whose face LPs stop, with ctx's error, when ctx ends.
func vertex(ctx context.Context, p Problem, r *Result) (*Result, error) {
	if err := p.validate(); err != nil {
		return nil, err
	}
	if r == nil || !sameDims(r.Mechanism, p.Utility) {
		return nil, fmt.Errorf("%w: no point of the problem's shape to start from", ErrNoVertex)
	}
	p.Prior = normalised(p.Prior)
	var last error = ErrNoVertex
	eps := max(0, p.Epsilon*(1-budgetShrink)-budgetShrink)
	for _, read := range []func() (used, capped mech.Pattern){
		func() (mech.Pattern, mech.Pattern) {
			if r.face == nil {
				return nil, nil
			}
			return r.face.used, r.face.capped
		},
		func() (mech.Pattern, mech.Pattern) { return thresholdFace(p, r.Mechanism, supportEntry, capSlack) },
		func() (mech.Pattern, mech.Pattern) { return thresholdFace(p, r.Mechanism, looseSupportEntry, 0) },
	} {
		used, capped := read()
		if used == nil {
			continue
		}
		for _, keep := range narrowKeep {
			narrow := narrowFace(r.Mechanism, used, capped, keep)
			if narrow == nil {
				break
			}
			if v, err := vertexOn(ctx, p, r, narrow, capped, eps); err == nil {
				return v, nil
			}
		}
		v, err := vertexOn(ctx, p, r, used, capped, eps)
		if err == nil {
			return v, nil
		}
		last = err
	}
	return nil, last
}

// narrowKeep are the fractions of each row's free pairs that the narrowed
// faces of Vertex keep, in the order tried. The face LP's cost grows
// faster than its free pairs; a narrowing that loses the optimum costs a
// fraction of the next.
var narrowKeep = []float64{0.1, 0.25, 0.5}

// narrowFace returns the face (used, capped) with, in each row, only the
// capped pairs and the ⌈keep·f⌉ largest entries of x among the row's f
// free pairs (used, not capped); nil when the face has at most
// narrowFree·(N+M) free pairs, whose LP is small enough as it is.
func narrowFace(x mech.Mechanism, used, capped mech.Pattern, keep float64) mech.Pattern {
	n, m := x.Dims()
	free := make([][]int, n)
	total := 0
	for i := range n {
		for j := range m {
			if used[i][j] && !capped[i][j] {
				free[i] = append(free[i], j)
			}
		}
		total += len(free[i])
	}
	if total <= narrowFree*(n+m) {
		return nil
	}
	out := make(mech.Pattern, n)
	for i := range n {
		out[i] = slices.Clone(capped[i])
		js := free[i]
		slices.SortStableFunc(js, func(a, b int) int { return cmp.Compare(x[i][b], x[i][a]) })
		for _, j := range js[:int(math.Ceil(keep*float64(len(js))))] {
			out[i][j] = true
		}
	}
	return out
}

// sameDims reports whether x is a rectangular mechanism of u's shape.
func sameDims(x mech.Mechanism, u mech.Utility) bool {
	n, m := u.Dims()
	if len(x) != n {
		return false
	}
	for _, row := range x {
		if len(row) != m {
			return false
		}
	}
	return true
}

// thresholdFace reads a face off the entries of x: the pairs above entry,
// and among them those within a relative slack of their cap e^ε q_j (none
// when slack is 0).
func thresholdFace(p Problem, x mech.Mechanism, entry, slack float64) (used, capped mech.Pattern) {
	n, m := x.Dims()
	lam := math.Exp(p.Epsilon)
	used, capped = make(mech.Pattern, n), make(mech.Pattern, n)
	for i := range n {
		used[i], capped[i] = make([]bool, m), make([]bool, m)
	}
	for j := range m {
		q := 0.0
		for i := range n {
			q += p.Prior[i] * x[i][j]
		}
		for i := range n {
			used[i][j] = x[i][j] > entry
			capped[i][j] = used[i][j] && slack > 0 && x[i][j] >= lam*q*(1-slack)
		}
	}
	return used, capped
}

// vertexOn runs steps 2–4 of Vertex on the face (used, capped) with the
// LP's budget eps (at most p.Epsilon).
func vertexOn(ctx context.Context, p Problem, r *Result, used, capped mech.Pattern, eps float64) (*Result, error) {
	n, _ := p.Utility.Dims()
	// 2. The face LP.
	f := newFaceLP(p, r.Mechanism, used, capped, eps)
	sol, err := solveVertexLP(ctx, f.lp, r.Value, f.wide)
	if err != nil {
		return nil, err
	}
	P := f.mechanism(sol.X)
	// 3. The vertex, without dust, audited.
	v, err := auditVertex(p, r, P, "vertex")
	if err != nil {
		return nil, err
	}
	// 4. The bound: r's, or the face LP's multipliers' (either sign
	// convention proves a bound; the lesser counts).
	out := &Result{Mechanism: P, Value: v, Bound: r.Bound, Alpha: r.Alpha, Iterations: r.Iterations}
	if len(sol.RowDuals) >= n { // the rows sum[i] come first
		for _, sign := range []float64{1, -1} {
			alpha := make([]float64, n)
			for i := range alpha {
				alpha[i] = sign * sol.RowDuals[i]
			}
			if bd := certify.UpperBound(p.Prior, p.Utility, nil, p.Epsilon, alpha); bd < out.Bound {
				out.Bound, out.Alpha = bd, alpha
			}
		}
	}
	if !out.valid() {
		return nil, fmt.Errorf("%w: the vertex's value %.17g exceeds the bound %.17g", ErrNoVertex, v, out.Bound)
	}
	return out, nil
}

// clearDust sets to zero, in place, the entries of p below
// certify.DustEntry and
// divides each row by its new sum.
func clearDust(p mech.Mechanism) {
	for _, row := range p {
		s := 0.0
		for j, v := range row {
			if v < certify.DustEntry {
				row[j] = 0
			}
			s += row[j]
		}
		if s > 0 {
			for j := range row {
				row[j] /= s
			}
		}
	}
}

// solveVertexLP solves a vertex LP with the pure-Go revised simplex. A
// wide face LP (budget above wideBudget) has its costs multiplied by
// faceCostScale/max(1, |value|) (value: the interior point's) for the
// engine (solver.Start.CostScale: the solution comes back in the LP's own
// units), and its iterations capped at faceIterations times its rows and
// columns. The
// simplex's optimality tolerance is absolute (1e-9 on reduced costs): with
// the costs as they are, a vertex it calls optimal can fall short of the
// optimum by about that much, the whole of valueSlack where the value is
// below 1 (binomial priors at ε = 20, values of 1e-9). And on some wide
// faces of tiny-mass priors it stalls; such a face is left to the next
// reading of Vertex, or to the caller's fallback.
func solveVertexLP(ctx context.Context, l *lp.Model, value float64, wide bool) (*solver.Solution, error) {
	var start solver.Start
	if wide {
		start.CostScale = faceCostScale / max(1, math.Abs(value))
		start.IterationLimit = faceIterations * (l.NumRows() + l.NumCols())
	}
	sol, _, err := solver.SolveContext(ctx, solver.Revised(), l, start)
	if cerr := ctx.Err(); cerr != nil {
		return nil, cerr
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNoVertex, err)
	}
	if sol.Status != lp.Optimal {
		return nil, fmt.Errorf("%w: the face LP ended %v", ErrNoVertex, sol.Status)
	}
	return sol, nil
}

// faceLP is the LP of the face of the ε-PML polytope on which the interior
// point lies: the pairs off the support at 0, and the pairs at their cap
// (p_ij = t_j, with t_j = e^ε q_j) replaced by t_j. An interior point of
// the optimal face has every constraint that holds with equality on the
// face tight, and every other strictly slack; so what remains is an LP in
// the free pairs (strictly between 0 and their cap) and the t_j, with
// N + M + |free| rows where the LP of the support has one cap row per
// used pair. Fixing a pair at its cap intersects the polytope with a
// supporting hyperplane, so every vertex of this LP is a vertex of the
// ε-PML polytope, whether or not the face was read right; a misread face
// only shows as a value below the interior point's.
type faceLP struct {
	lp     *lp.Model
	n, m   int
	t      []int     // column of t_j/s_j, -1 for an unused output
	s      []float64 // the unit s_j of output j's column
	wide   bool      // the budget is above wideBudget
	col    [][]int   // column of a free p_ij; -1 for a pair off the support
	capped [][]bool
}

// newFaceLP builds the LP of the face (used, capped) with budget eps:
//
//	max Σ_capped π_i u_ij t_j + Σ_free π_i u_ij p_ij
//	sum[i]:  Σ_{j: ij capped} t_j + Σ_{j: ij free} p_ij = 1
//	marg[j]: (e^{−ε} − Σ_{i: ij capped} π_i) t_j − Σ_{i: ij free} π_i p_ij = 0
//	up[i,j]: p_ij − t_j ≤ 0   (ij free)
//
// Output j's column holds t_j/s_j. Up to wideBudget s_j = 1. Above it
// s_j = e^ε q̂_j, where q̂_j is the output's mass at the interior point x,
// so the column holds q_j/q̂_j, about 1 at the optimum, and each marginal
// row is divided by q̂_j. The simplex meets every row and column to 1e-9
// in the units it is written in, and scales each row by its largest
// entry. In the units of q_j an output of mass about 1e-9 (one used only
// by letters of that prior mass, as binomial priors have at large ε)
// could be off by its whole mass and its pairs exceed their cap by as
// much (9% at ε = 20 on binomial(29, 0.1)); divided by q̂_j its marginal
// row is met to 1e-9 of its mass. And a cap row p_ij − e^ε q_j ≤ 0 in the
// units of q_j is scaled by the engine to e^{−ε} p_ij − q_j ≤ 0, whose
// tolerance, 1e-9 e^{−ε} (1e-22 at ε = 30), is below the rounding of q_j:
// the simplex then finds faces of binomial(63, 0.5) at ε = 30 infeasible
// or stalls. In the units of q̂_j the cap p_ij − e^ε q̂_j (q_j/q̂_j) ≤ 0
// has the coefficient e^ε q̂_j, at most of the order of 1 on a cap that
// can bind (p_ij ≤ 1), so the row keeps its tolerance.
func newFaceLP(p Problem, x mech.Mechanism, support, capped mech.Pattern, eps float64) *faceLP {
	n, m := p.Utility.Dims()
	f := &faceLP{lp: &lp.Model{Maximize: true}, n: n, m: m, t: make([]int, m), s: make([]float64, m),
		wide: eps > wideBudget, col: make([][]int, n), capped: capped}
	for i := range n {
		f.col[i] = make([]int, m)
	}
	l := f.lp
	tCost := make([]float64, m)
	w := make([]float64, m) // the factor of the marginal row of output j
	for j := range m {
		f.t[j], f.s[j], w[j] = -1, 1, 1
		if f.wide {
			q := outputMass(p.Prior, x, j)
			f.s[j], w[j] = math.Exp(eps)*q, 1/q
		}
		for i := range n {
			f.col[i][j] = -1
			if capped[i][j] {
				tCost[j] += p.Prior[i] * p.Utility[i][j]
			}
		}
	}
	for j := range m {
		for i := range n {
			if support[i][j] {
				f.t[j] = l.AddCol(f.s[j]*tCost[j], 0, lp.Inf, fmt.Sprintf("t[%d]", j+1))
				break
			}
		}
	}
	for i := range n {
		for j := range m {
			if support[i][j] && !f.capped[i][j] {
				f.col[i][j] = l.AddCol(p.Prior[i]*p.Utility[i][j], 0, lp.Inf, fmt.Sprintf("p[%d,%d]", i+1, j+1))
			}
		}
	}
	for i := range n {
		var e []lp.Nonzero
		for j := range m {
			switch {
			case f.capped[i][j]:
				e = append(e, lp.Entry(f.t[j], f.s[j]))
			case f.col[i][j] >= 0:
				e = append(e, lp.Entry(f.col[i][j], 1))
			}
		}
		l.AddRow(1, 1, fmt.Sprintf("sum[%d]", i+1), e...)
	}
	mu := math.Exp(-eps)
	for j := range m {
		if f.t[j] < 0 {
			continue
		}
		c := mu
		var e []lp.Nonzero
		for i := range n {
			switch {
			case f.capped[i][j]:
				c -= p.Prior[i]
			case f.col[i][j] >= 0:
				e = append(e, lp.Entry(f.col[i][j], -w[j]*p.Prior[i]))
			}
		}
		l.AddRow(0, 0, fmt.Sprintf("marg[%d]", j+1), append([]lp.Nonzero{lp.Entry(f.t[j], c*f.s[j]*w[j])}, e...)...)
		for i := range n {
			if k := f.col[i][j]; k >= 0 {
				l.AddRow(math.Inf(-1), 0, fmt.Sprintf("up[%d,%d]", i+1, j+1), lp.Entry(k, 1), lp.Entry(f.t[j], -f.s[j]))
			}
		}
	}
	return f
}

// mechanism reads the mechanism of a solution x of the face LP; negative
// entries (rounding) become 0.
func (f *faceLP) mechanism(x []float64) mech.Mechanism {
	P := mech.Zeros(f.n, f.m)
	for i := range f.n {
		for j := range f.m {
			v := 0.0
			switch {
			case f.capped[i][j]:
				v = f.s[j] * x[f.t[j]]
			case f.col[i][j] >= 0:
				v = x[f.col[i][j]]
			}
			P[i][j] = max(0, v)
		}
	}
	return P
}

// outputMass returns q_j = Σ_i π_i x_ij, or the least normal float64 when
// q_j is below it, whose reciprocal is finite (newFaceLP divides by it).
func outputMass(pi mech.Prior, x mech.Mechanism, j int) float64 {
	q := 0.0
	for i, row := range x {
		q += pi[i] * row[j]
	}
	return max(q, 0x1p-1022)
}

// auditVertex clears P's dust and audits it as the vertex of the interior
// point r (what names it in the errors): its rows sum to 1, its PML keeps
// the budget to rounding, and its value is not below r's. It returns that
// value.
func auditVertex(p Problem, r *Result, P mech.Mechanism, what string) (float64, error) {
	clearDust(P)
	if !certify.RowsSumToOne(P) {
		return 0, fmt.Errorf("%w: a row of the %s does not sum to 1", ErrNoVertex, what)
	}
	if a := leakage.PML(p.Prior, P); !(a <= p.Epsilon+auditRounding*max(1, p.Epsilon)) {
		return 0, fmt.Errorf("%w: the %s has PML %g above %g", ErrNoVertex, what, a, p.Epsilon)
	}
	v := p.Utility.ExpectedUtility(p.Prior, P)
	if v < r.Value-valueSlack*max(1, math.Abs(r.Value)) {
		return 0, fmt.Errorf("%w: the %s's value %.17g is below the interior point's %.17g", ErrNoVertex, what, v, r.Value)
	}
	return v, nil
}
