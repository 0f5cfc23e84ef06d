package ipm

import "github.com/pmlopt/pmlopt/certify"

// The tolerances of package ipm. Those of the audit (rows summing to 1,
// the least entry of a returned mechanism, the noise in interior points)
// are package certify's.
const (
	// boundSlack is the relative amount by which a result's bound may lie
	// below its value (rounding in the two sums) before the pair no
	// longer counts as a bracket.
	boundSlack = 1e-12

	// supportEntry is the size above which an entry of the interior point
	// counts as used: the point lies inside the optimal face, where every
	// pair some optimal vertex uses is of the order of the prior's ratios,
	// and the pairs off the face are about 1e-13.
	supportEntry = 1e-9
	// looseSupportEntry is the entry size of the second, wider support,
	// tried when the first leaves out a pair the optimum needs (its LP
	// then falls short of the interior point's value).
	looseSupportEntry = 1e-12
	// valueSlack is the relative slack within which the vertex's value
	// must reach the interior point's.
	valueSlack = 1e-9
	// capSlack is the relative distance to its cap p_ij ≤ e^ε q_j below
	// which a pair of the interior point counts as capped on the optimal
	// face.
	capSlack = 1e-8
	// budgetShrink is the relative (and absolute) margin by which the
	// vertex LP's budget lies inside ε.
	budgetShrink = 1e-12
	// narrowFree is the number of free pairs per row and column above
	// which Vertex first tries narrowed faces (narrowKeep).
	narrowFree = 8
	// faceCostScale, divided by max(1, |value|), multiplies the costs of
	// the face LPs above wideBudget (solveVertexLP): the simplex's
	// optimality tolerance (1e-9 on reduced costs) then costs the vertex
	// about 1e-11 of the value's scale, well inside valueSlack.
	faceCostScale = 100
	// faceIterations times the rows and columns of a face LP above
	// wideBudget caps its simplex iterations (solveVertexLP): such a face
	// LP usually takes fewer iterations than it has rows and columns.
	faceIterations = 1
	// wideBudget is the budget (nats) above which the face LP's column of
	// output j holds q_j rather than t_j = e^ε q_j, its marginal rows are
	// divided by the interior point's q_j, and solveVertexLP scales its
	// costs and caps its iterations.
	wideBudget = 5
	// auditRounding is the relative excess over ε the vertex may show
	// under leakage.PML: none when the budget could be shrunk, but at
	// ε = 0 a deterministic column's ratio 1/q_j is 1 only up to the
	// rounding of the prior's sum (the PML of a one-hot column audits at
	// 2.2e-16 for some priors).
	auditRounding = 4 * certify.UnitRoundoff
)
