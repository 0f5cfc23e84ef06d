package pmlopt

// DrawEstimate is drawEstimate, for the tests of package pmlopt_test.
var DrawEstimate = drawEstimate
