// Package aliased is a fixture of the genbind test: type aliases, which
// go/types materializes as *types.Alias and gomacro's genimport does not
// know; genbind resolves them before genimport writes the bindings.
package aliased

import "strings"

// Base is a struct with a method.
type Base struct{ N int }

// Get returns N.
func (b *Base) Get() int { return b.N }

// Word is an alias of a predeclared type.
type Word = string

// Builder is an alias of another package's type.
type Builder = strings.Builder

// Ref is an alias of this package's struct type.
type Ref = Base

// Outer embeds Base through its alias: Get is promoted (a wrapper).
type Outer struct{ Ref }

// Namer has methods whose signatures hold aliases, any among them (which
// genimport would reject with "unexpected type").
type Namer interface {
	Name(w Word, v any) Word
	Build(b *Builder, parts ...Word) []any
}

// Named is an alias of an interface with aliases in its methods.
type Named = Namer

// Hello is a typed constant of an alias type.
const Hello Word = "hello"

// Upper has alias-typed parameters.
func Upper(w Word, b *Builder) Word {
	b.WriteString(w)
	return strings.ToUpper(w)
}

// Pair is generic (skipped).
type Pair[K comparable, V any] struct {
	Key K
	Val V
}

// IntPair is an alias of an instantiation: bound like a plain type.
type IntPair = Pair[int, float64]

// Keyed is a generic alias (skipped with a warning).
type Keyed[V any] = Pair[string, V]
