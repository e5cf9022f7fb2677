package window

// WithLocation is withLocation, for the tests of package window_test.
var WithLocation = withLocation
