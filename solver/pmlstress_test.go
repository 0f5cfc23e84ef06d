package solver_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pmlopt/pmlopt/internal/testlong"
	"github.com/pmlopt/pmlopt/lp"
	"github.com/pmlopt/pmlopt/solver"
)

// pmlFeas is the ε-PML feasibility LP of polytope/doc.go, written here
// independently: for every allowed pair (i, j) a column p_ij ∈ [0, 1], for
// every output a column t_j ≥ 0, and the rows
//
//	up[i,j]:  p_ij − t_j ≤ 0
//	marg[j]:  e^{−ε} t_j − Σ_k π_k p_kj = 0
//	sum[i]:   Σ_j p_ij = 1
//
// every row multiplied by scale (as package worstcase scales them).
type pmlFeas struct {
	model *lp.Model
	qRow  []int
	tCol  []int
	scale float64
}

// randomPMLFeas draws an n×m instance: a random prior with full support,
// each row of the order a random permutation, and the pairs of rank below h
// forbidden.
func randomPMLFeas(rng *rand.Rand, n, m, h int, scale float64) *pmlFeas {
	prior := make([]float64, n)
	sum := 0.0
	for i := range prior {
		prior[i] = 0.05 + rng.Float64()
		sum += prior[i]
	}
	for i := range prior {
		prior[i] /= sum
	}
	f := &pmlFeas{model: &lp.Model{}, scale: scale}
	md := f.model
	pCol := make([][]int, n)
	for i := 0; i < n; i++ {
		perm := rng.Perm(m)
		pCol[i] = make([]int, m)
		for j := 0; j < m; j++ {
			pCol[i][j] = -1
			if perm[j]+1 >= h {
				pCol[i][j] = md.AddCol(0, 0, 1, "")
			}
		}
	}
	for j := 0; j < m; j++ {
		f.tCol = append(f.tCol, md.AddCol(0, 0, lp.Inf, ""))
	}
	for i := 0; i < n; i++ {
		for j := 0; j < m; j++ {
			if pCol[i][j] >= 0 {
				md.AddRow(math.Inf(-1), 0, "", lp.Entry(pCol[i][j], scale), lp.Entry(f.tCol[j], -scale))
			}
		}
	}
	for j := 0; j < m; j++ {
		es := []lp.Nonzero{lp.Entry(f.tCol[j], scale)}
		for k := 0; k < n; k++ {
			if pCol[k][j] >= 0 {
				es = append(es, lp.Entry(pCol[k][j], -scale*prior[k]))
			}
		}
		f.qRow = append(f.qRow, md.AddRow(0, 0, "", es...))
	}
	for i := 0; i < n; i++ {
		var es []lp.Nonzero
		for j := 0; j < m; j++ {
			if pCol[i][j] >= 0 {
				es = append(es, lp.Entry(pCol[i][j], scale))
			}
		}
		md.AddRow(scale, scale, "", es...)
	}
	return f
}

// setEps sets ε in the model and, when s is not nil, in the session.
func (f *pmlFeas) setEps(s solver.Session, eps float64) {
	v := f.scale * math.Exp(-eps)
	for j, r := range f.qRow {
		for k := range f.model.ConstMatrix {
			e := &f.model.ConstMatrix[k]
			if e.Row == r && e.Col == f.tCol[j] {
				e.Val = v
			}
		}
		if s != nil {
			s.SetCoef(r, f.tCol[j], v)
		}
	}
}

// checkVerdict checks one answer of a warm session at ε: an Optimal point
// must satisfy the model within 1e-8; an Infeasible verdict must carry a
// certificate and must not be contradicted by a cold solve (revised, and
// Clp when built). Feasibility is monotone in ε, and the engines decide
// within a tolerance of 1e-9 on the constraints, so a cold Optimal at ε
// contradicts the verdict only when the model at ε − 1e-6 is feasible too.
func checkVerdict(t *testing.T, name string, f *pmlFeas, eps float64, sol *solver.Solution, what string) {
	t.Helper()
	m := f.model
	switch sol.Status {
	case solver.Optimal:
		require.LessOrEqual(t, m.MaxViolation(sol.X), 1e-8, "%s: %s: optimal point violates the model", name, what)
	case solver.Infeasible:
		if name == "revised" {
			require.NotNil(t, sol.Certificate, "%s: no certificate", what)
			require.Greater(t, solver.FarkasGap(m, sol.Certificate), 0.0, "%s: certificate proves nothing", what)
		}
		refs := []solver.Solver{solver.Revised()}
		if clp, err := solver.Get("clp"); err == nil {
			refs = append(refs, clp)
		}
		for _, ref := range refs {
			c, err := ref.Solve(m)
			require.NoError(t, err)
			if c.Status == solver.Infeasible {
				continue
			}
			require.Equal(t, solver.Optimal, c.Status, "%s: cold %s", what, ref.Name())
			f.setEps(nil, eps-1e-6)
			c2, err := ref.Solve(m)
			f.setEps(nil, eps)
			require.NoError(t, err)
			require.NotEqual(t, solver.Optimal, c2.Status, "%s: %s warm says infeasible, cold %s finds ε − 1e-6 feasible", what, name, ref.Name())
		}
	default:
		t.Fatalf("%s: %s: status %v", what, name, sol.Status)
	}
}

// TestPMLWarmBisectionStress runs warm bisections on ε over random ε-PML
// feasibility LPs from 8×8 to 24×24, with and without row scaling, and
// checks every verdict independently.
func TestPMLWarmBisectionStress(t *testing.T) {
	sizes := []int{8, 12, 16, 20, 24}
	if testlong.Short() {
		sizes = []int{8, 16}
	}
	for _, name := range []string{"revised"} {
		s, err := solver.Get(name)
		require.NoError(t, err)
		ws := s.(solver.WarmSolver)
		for _, sz := range sizes {
			for _, scale := range []float64{1, 1024} {
				for rep := 0; rep < 3; rep++ {
					rng := rand.New(rand.NewPCG(uint64(sz), uint64(rep)+uint64(scale)))
					n, m := sz, sz+rng.IntN(5)-2
					f := randomPMLFeas(rng, n, m, 1+rng.IntN(m/2+1), scale)
					sess, err := ws.Load(f.model)
					require.NoError(t, err)
					lo, hi := 0.0, 8.0
					for it := 0; it < 45; it++ {
						eps := (lo + hi) / 2
						f.setEps(sess, eps)
						sol, err := sess.Solve()
						require.NoError(t, err)
						what := fmt.Sprintf("%d×%d scale %v rep %d step %d ε=%.17g", n, m, scale, rep, it, eps)
						checkVerdict(t, name, f, eps, sol, what)
						if sol.Status == solver.Optimal {
							hi = eps
						} else {
							lo = eps
						}
					}
					sess.Close()
				}
			}
		}
	}
}
