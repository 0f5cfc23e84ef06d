// Package clean holds the heuristics that tidy a solver's point into a
// mechanism before it is audited: they prove nothing, and every mechanism
// they return is audited afterwards (certify.Audit), so a cleaning that
// goes wrong costs an answer, never its certificate.
//
//   - Vertex: an LP engine's vertex (entries of rounding cleared, outputs
//     of noise that break the budget dropped);
//   - Interior: an interior point (outputs of noise dropped, then mixed into
//     the budget by MixToBudget);
//   - WithoutNoise: a point a search found above its ε, without the outputs
//     of noise that break it;
//   - WithoutDust and DustFree: a returned mechanism without entries below
//     certify.DustEntry, kept only when the copy audits within the budget;
//   - ClearTiny and DropNoise: the steps the others are made of, for the
//     interior point's probes.
//
// The noise levels are certify's (VertexEntryNoise, VertexColumnNoise,
// InteriorEntryNoise, InteriorColumnNoise, DustEntry), beside the audit's
// tolerance they must stay below.
package clean
