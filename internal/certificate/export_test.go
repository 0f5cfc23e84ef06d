package certificate

// LowerFromLP is setLowerFromLP, for the tests of package certificate_test.
var LowerFromLP = setLowerFromLP
