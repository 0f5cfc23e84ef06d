package clean

// MixMargin is mixMargin, for the tests of package clean_test.
const MixMargin = mixMargin
