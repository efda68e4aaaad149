package main

import (
	"bytes"
	"go/token"
	"go/types"
	_ "unsafe" // for go:linkname

	"github.com/cosmos72/gomacro/base/genimport"
	"github.com/cosmos72/gomacro/base/output"
)

// Type aliases and gomacro's genimport
//
// gomacro's genimport (at the pinned v0.0.0-20240506194242-2ff796e3da10)
// predates *types.Alias: it was written for go/types' old representation,
// where an alias was its target type. Since Go 1.23 go/types materializes
// aliases (GODEBUG gotypesalias=1), Go 1.27 removed the setting that turned
// that off, and the export data reader of x/tools ≥ v0.31 builds aliases
// whatever the setting. Handed a package with aliases, genimport
//
//   - panics ("unexpected type …") on an alias, `any` included, in the
//     signature of an exported interface's method (scanner.go typeExported);
//   - binds a generic alias as if it were a plain type (the file then does
//     not compile);
//   - records no promoted methods (Wrappers) for a struct embedding an
//     alias, nor for an alias of a struct type.
//
// So Generate loads the packages through genimport (Importer.Load, exported)
// and hands each one to genimport's file writer only after resolveAliases has
// rewritten it into the old representation. genimport has no exported entry
// point that takes a *types.Package, hence the linkname below; it names an
// unexported function of the pinned gomacro, whose signature is:
//
//	func createImportFile(o *Output, out *bytes.Buffer, path string,
//		gpkg *types.Package, mode ImportMode) (isEmpty bool)
//
// (Output is an alias of output.Output.) A gomacro upgrade must recheck it;
// TestBindingsUpToDate and TestAliasesResolved fail if it stops working.

// createImportFile writes the bindings of gpkg, imported as path, to out.
//
//go:linkname createImportFile github.com/cosmos72/gomacro/base/genimport.createImportFile
func createImportFile(o *output.Output, out *bytes.Buffer, path string, gpkg *types.Package, mode genimport.ImportMode) (isEmpty bool)

// resolveAliases returns a package with the scope of pkg in which no type
// that genimport inspects is a *types.Alias: an alias declared in pkg
// becomes a type name whose type is the alias's target (what go/types made
// of it with gotypesalias=0), and aliases inside the types genimport walks
// (interface method signatures, struct fields, embedded types) are replaced
// by their targets. Named types of pkg and the named types they embed are
// updated in place with SetUnderlying: this process only generates code.
// Generic aliases are left out, with a warning like genimport's for generic
// types.
func resolveAliases(pkg *types.Package, o *output.Output) *types.Package {
	u := unaliaser{named: map[*types.Named]bool{}}
	out := types.NewPackage(pkg.Path(), pkg.Name())
	scope := pkg.Scope()
	for _, name := range scope.Names() {
		obj := scope.Lookup(name)
		if tn, ok := obj.(*types.TypeName); ok {
			switch t := tn.Type().(type) {
			case *types.Alias:
				if t.TypeParams().Len() > 0 {
					if tn.Exported() {
						o.Warnf("skipping import of %s.%s:\timporting generic type aliases is not supported", pkg.Path(), name)
					}
					continue
				}
				target := u.typ(t)
				if n, ok := target.(*types.Named); ok {
					u.fixNamed(n)
				}
				obj = types.NewTypeName(tn.Pos(), tn.Pkg(), tn.Name(), target)
			case *types.Named:
				u.fixNamed(t)
			}
		}
		out.Scope().Insert(obj)
	}
	out.MarkComplete()
	return out
}

// anyAlias is the predeclared any (a *types.Alias since gotypesalias=1), and
// anyNamed what resolveAliases puts in its place: a universe-like named type
// that genimport accepts and that prints as "any" on every toolchain (Go 1.26
// prints an unaliased any as "any", Go 1.27 as "interface{}"), so that the
// generated files are the same on both.
var (
	anyAlias = types.Universe.Lookup("any").Type()
	anyNamed = types.NewNamed(types.NewTypeName(token.NoPos, nil, "any", nil), types.Unalias(anyAlias), nil)
)

// unaliaser rewrites types without aliases; named records the named types
// whose underlying type was visited, and whether it changed.
type unaliaser struct {
	named map[*types.Named]bool
}

// fixNamed replaces the underlying type of n by its alias-free rewrite and
// reports whether it changed. Instances and generic types are left alone:
// genimport binds neither.
func (u unaliaser) fixNamed(n *types.Named) bool {
	if changed, seen := u.named[n]; seen {
		return changed
	}
	u.named[n] = false
	if n.Origin() != n || n.TypeParams().Len() > 0 {
		return false
	}
	under := n.Underlying()
	v := u.typ(under)
	if v == under {
		return false
	}
	n.SetUnderlying(v)
	u.named[n] = true
	return true
}

// typ returns t without aliases, t itself when it holds none. Named types
// are kept as they are (genimport does not look inside them) except where
// they are embedded, which fixNamed handles.
func (u unaliaser) typ(t types.Type) types.Type {
	switch t := t.(type) {
	case *types.Alias:
		if t == anyAlias {
			return anyNamed
		}
		if t.TypeArgs().Len() > 0 {
			return u.typ(types.Unalias(t)) // an instance of a generic alias
		}
		return u.typ(t.Rhs())
	case *types.Pointer:
		if e := u.typ(t.Elem()); e != t.Elem() {
			return types.NewPointer(e)
		}
	case *types.Slice:
		if e := u.typ(t.Elem()); e != t.Elem() {
			return types.NewSlice(e)
		}
	case *types.Array:
		if e := u.typ(t.Elem()); e != t.Elem() {
			return types.NewArray(e, t.Len())
		}
	case *types.Chan:
		if e := u.typ(t.Elem()); e != t.Elem() {
			return types.NewChan(t.Dir(), e)
		}
	case *types.Map:
		k, e := u.typ(t.Key()), u.typ(t.Elem())
		if k != t.Key() || e != t.Elem() {
			return types.NewMap(k, e)
		}
	case *types.Signature:
		return u.signature(t)
	case *types.Struct:
		return u.structType(t)
	case *types.Interface:
		return u.iface(t)
	}
	return t // *types.Basic, *types.Named, *types.TypeParam, *types.Union
}

// signature rewrites params and results; the receiver is dropped (the
// signature is either a func type or becomes an interface method, whose
// receiver types.NewInterfaceType sets). Generic signatures are kept.
func (u unaliaser) signature(s *types.Signature) *types.Signature {
	if s.TypeParams().Len() > 0 || s.RecvTypeParams().Len() > 0 {
		return s
	}
	p, r := u.tuple(s.Params()), u.tuple(s.Results())
	if p == s.Params() && r == s.Results() {
		return s
	}
	return types.NewSignatureType(nil, nil, nil, p, r, s.Variadic())
}

func (u unaliaser) tuple(t *types.Tuple) *types.Tuple {
	if t == nil {
		return nil
	}
	vars := make([]*types.Var, t.Len())
	changed := false
	for i := range vars {
		v := t.At(i)
		if vt := u.typ(v.Type()); vt != v.Type() {
			v = types.NewParam(v.Pos(), v.Pkg(), v.Name(), vt)
			changed = true
		}
		vars[i] = v
	}
	if !changed {
		return t
	}
	return types.NewTuple(vars...)
}

func (u unaliaser) structType(s *types.Struct) types.Type {
	fields := make([]*types.Var, s.NumFields())
	tags := make([]string, len(fields))
	changed := false
	for i := range fields {
		f := s.Field(i)
		ft := u.typ(f.Type())
		if f.Anonymous() {
			// genimport's wrapper analysis walks embedded T and *T.
			e := ft
			if p, ok := e.(*types.Pointer); ok {
				e = p.Elem()
			}
			if n, ok := e.(*types.Named); ok {
				u.fixNamed(n)
			}
		}
		if ft != f.Type() {
			f = types.NewField(f.Pos(), f.Pkg(), f.Name(), ft, f.Anonymous())
			changed = true
		}
		fields[i], tags[i] = f, s.Tag(i)
	}
	if !changed {
		return s
	}
	return types.NewStruct(fields, tags)
}

// iface rewrites explicit methods and embedded types; an embedded named
// interface is fixed first, so that the rebuilt method set holds its
// rewritten methods.
func (u unaliaser) iface(t *types.Interface) types.Type {
	changed := false
	methods := make([]*types.Func, t.NumExplicitMethods())
	for i := range methods {
		m := t.ExplicitMethod(i)
		sig := m.Type().(*types.Signature)
		if s := u.signature(sig); s != sig {
			m = types.NewFunc(m.Pos(), m.Pkg(), m.Name(), s)
			changed = true
		}
		methods[i] = m
	}
	embeddeds := make([]types.Type, t.NumEmbeddeds())
	for i := range embeddeds {
		e := t.EmbeddedType(i)
		ne := u.typ(e)
		if n, ok := ne.(*types.Named); ok && u.fixNamed(n) {
			changed = true
		}
		if ne != e {
			changed = true
		}
		embeddeds[i] = ne
	}
	if !changed {
		return t
	}
	return types.NewInterfaceType(methods, embeddeds).Complete()
}
