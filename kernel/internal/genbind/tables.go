package main

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/printer"
	"go/token"
	"regexp"
	"strconv"
	"strings"
)

// tables moves the Binds, Types and Proxies of a binding file from map
// literals built by code to tables of data, which the init function
// turns into the same maps (kernel/bindings/tables.go's valueMap and
// typeMap).
//
// genimport writes each entry as a call: "Name": ValueOf(pkg.Name), and a
// variable as ValueOf(&pkg.Name).Elem(), a type as
// TypeOf((*pkg.Name)(nil)).Elem(). Compiled, every entry is a call and a
// map assignment in one init function per package (0.5 MB of WebAssembly
// for kernel/bindings' 1,224 entries); a browser compiles that code when
// the init runs, once, on the kernel worker's start (V8 compiles a
// function when it is first called). A package-level table of {name,
// value} pairs whose values are functions, constants, pointers to
// variables or typed nil pointers is laid out by the linker as data (Go's
// static initialisation, cmd/compile/internal/staticinit), so the init is
// a loop over data. The maps hold the same reflect values: ValueOf of the
// function or constant, the Elem of a pointer to the variable
// (addressable, as before), the Elem of the pointer type.
//
// suffix names the tables (binds_SUFFIX, types_SUFFIX, proxies_SUFFIX),
// unique in the package. An entry of any other form is an error: the
// generator must be taught it, not guess.
func tables(src []byte, suffix string) ([]byte, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "", src, parser.ParseComments)
	if err != nil {
		return nil, err
	}
	var decls []string
	var failed error
	ast.Inspect(f, func(n ast.Node) bool {
		kv, ok := n.(*ast.KeyValueExpr)
		if !ok || failed != nil {
			return failed == nil
		}
		key, ok := kv.Key.(*ast.Ident)
		lit, ok2 := kv.Value.(*ast.CompositeLit)
		if !ok || !ok2 {
			return true
		}
		var table, elem, conv string
		switch key.Name {
		case "Binds":
			table, elem, conv = "binds_"+suffix, "bind", "valueMap"
		case "Types", "Proxies":
			table, elem, conv = strings.ToLower(key.Name)+"_"+suffix, "typeBind", "typeMap"
		default:
			return true
		}
		var rows bytes.Buffer
		for _, e := range lit.Elts {
			ekv, ok := e.(*ast.KeyValueExpr)
			if !ok {
				failed = fmt.Errorf("%s: an entry that is not name: value", key.Name)
				return false
			}
			name, ok := ekv.Key.(*ast.BasicLit)
			if !ok || name.Kind != token.STRING {
				failed = fmt.Errorf("%s: an entry whose name is not a string", key.Name)
				return false
			}
			var row string
			if key.Name == "Binds" {
				arg, isElem, ok := valueOf(ekv.Value)
				if !ok {
					failed = fmt.Errorf("%s %s: an entry not of the form ValueOf(x) or ValueOf(&x).Elem(): %s", key.Name, name.Value, render(fset, ekv.Value))
					return false
				}
				row = fmt.Sprintf("{%s, %s, %t},", name.Value, render(fset, arg), isElem)
			} else {
				arg, ok := typeOf(ekv.Value)
				if !ok {
					failed = fmt.Errorf("%s %s: an entry not of the form TypeOf((*T)(nil)).Elem(): %s", key.Name, name.Value, render(fset, ekv.Value))
					return false
				}
				row = fmt.Sprintf("{%s, %s},", name.Value, render(fset, arg))
			}
			rows.WriteString("\t" + row + "\n")
		}
		decls = append(decls, fmt.Sprintf("var %s = []%s{\n%s}\n", table, elem, rows.String()))
		kv.Value = &ast.CallExpr{Fun: ast.NewIdent(conv), Args: []ast.Expr{ast.NewIdent(table)}}
		return false
	})
	if failed != nil {
		return nil, failed
	}
	// The tables need no reflect; what remains of the file (the proxies,
	// the untyped constants, the wrappers) does not use it either.
	for i, imp := range f.Imports {
		if imp.Name != nil && imp.Name.Name == "." && imp.Path.Value == strconv.Quote("reflect") {
			f.Imports = append(f.Imports[:i], f.Imports[i+1:]...)
			break
		}
	}
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.IMPORT {
			continue
		}
		for i, s := range g.Specs {
			imp := s.(*ast.ImportSpec)
			if imp.Name != nil && imp.Name.Name == "." && imp.Path.Value == strconv.Quote("reflect") {
				g.Specs = append(g.Specs[:i], g.Specs[i+1:]...)
				break
			}
		}
	}
	var out bytes.Buffer
	if err := printer.Fprint(&out, fset, f); err != nil {
		return nil, err
	}
	if len(decls) > 0 {
		out.WriteString("\n// The tables of the init above: data laid out by the linker (genbind's tables.go says why).\n")
		for _, d := range decls {
			out.WriteString("\n" + d)
		}
	}
	// The map literals' lines leave blank lines between the fields.
	b, err := format.Source(out.Bytes())
	if err != nil {
		return nil, err
	}
	return format.Source(blankAfterTable.ReplaceAll(b, []byte("$1\n")))
}

// blankAfterTable matches a field set from a table and the blank line
// after it.
var blankAfterTable = regexp.MustCompile(`(\t(?:Binds|Types|Proxies):\s+(?:valueMap|typeMap)\(\w+\),)\n[ \t]*\n`)

// valueOf matches ValueOf(x) (elem false) and ValueOf(&x).Elem() (elem
// true, arg &x), as genimport writes a function or constant and a
// variable.
func valueOf(e ast.Expr) (arg ast.Expr, elem, ok bool) {
	if inner, ok := elemOf(e); ok {
		a, ok := call1(inner, "ValueOf")
		if u, isAddr := a.(*ast.UnaryExpr); ok && isAddr && u.Op == token.AND {
			return a, true, true
		}
		return nil, false, false
	}
	a, ok := call1(e, "ValueOf")
	return a, false, ok
}

// typeOf matches TypeOf((*T)(nil)).Elem() and returns (*T)(nil).
func typeOf(e ast.Expr) (ast.Expr, bool) {
	inner, ok := elemOf(e)
	if !ok {
		return nil, false
	}
	a, ok := call1(inner, "TypeOf")
	if !ok {
		return nil, false
	}
	c, ok := a.(*ast.CallExpr)
	if !ok || len(c.Args) != 1 {
		return nil, false
	}
	if nilIdent, ok := c.Args[0].(*ast.Ident); !ok || nilIdent.Name != "nil" {
		return nil, false
	}
	return a, true
}

// elemOf matches x.Elem() and returns x.
func elemOf(e ast.Expr) (ast.Expr, bool) {
	c, ok := e.(*ast.CallExpr)
	if !ok || len(c.Args) != 0 {
		return nil, false
	}
	sel, ok := c.Fun.(*ast.SelectorExpr)
	if !ok || sel.Sel.Name != "Elem" {
		return nil, false
	}
	return sel.X, true
}

// call1 matches fn(x) for the dot-imported reflect function fn.
func call1(e ast.Expr, fn string) (ast.Expr, bool) {
	c, ok := e.(*ast.CallExpr)
	if !ok || len(c.Args) != 1 || c.Ellipsis.IsValid() {
		return nil, false
	}
	id, ok := c.Fun.(*ast.Ident)
	if !ok || id.Name != fn {
		return nil, false
	}
	return c.Args[0], true
}
