package bindings

import "reflect"

// bind is an entry of a generated Binds table: v is the bound function or
// constant, or with elem a pointer to the bound variable (the binding is
// then the variable itself, addressable). A table of binds whose values
// are functions, constants and pointers to variables is data the linker
// lays out; genbind's tables.go says why the generated files use tables
// rather than map literals.
type bind struct {
	name string
	v    any
	elem bool
}

// typeBind is an entry of a generated Types or Proxies table: ptr is a
// nil pointer to the bound type, (*T)(nil).
type typeBind struct {
	name string
	ptr  any
}

// valueMap is the Binds map of a table: reflect.ValueOf of each value,
// the Elem of a variable's pointer, as gomacro's generated code has it
// (ValueOf(f), ValueOf(&v).Elem()).
func valueMap(t []bind) map[string]reflect.Value {
	m := make(map[string]reflect.Value, len(t))
	for _, b := range t {
		v := reflect.ValueOf(b.v)
		if b.elem {
			v = v.Elem()
		}
		m[b.name] = v
	}
	return m
}

// typeMap is the Types (or Proxies) map of a table: the type each nil
// pointer points to, as TypeOf((*T)(nil)).Elem().
func typeMap(t []typeBind) map[string]reflect.Type {
	m := make(map[string]reflect.Type, len(t))
	for _, b := range t {
		m[b.name] = reflect.TypeOf(b.ptr).Elem()
	}
	return m
}
