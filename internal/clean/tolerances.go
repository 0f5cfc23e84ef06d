package clean

// The noise in solvers' points: entries up to an entry noise are rounding,
// and an output whose entries are all at most a column noise is dropped
// whole when it breaks the budget (an engine feasible to about 1e-9 on
// each row turns an output of tiny mass into any ratio). Vertices and
// interior points need different levels: an LP engine's vertex has exact
// zeros up to rounding and rows met to about 1e-9, which an output of
// mass up to 1e-6 turns into a ratio off by up to 1e-3; an interior point
// of package internal/ipm keeps every entry positive, of the order of
// 1e-11 off the support at its last iterations, and its outputs of noise
// are no larger than 1e-9.
const (
	VertexEntryNoise    = 1e-12
	VertexColumnNoise   = 1e-6
	InteriorEntryNoise  = 1e-11
	InteriorColumnNoise = 1e-9
)
