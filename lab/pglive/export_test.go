package pglive

// ExplainError is DB.explain for a server at where, for the tests of
// messages the embedded server cannot provoke.
func ExplainError(where, what string, err error) error { return (&DB{Where: where}).explain(what, err) }
