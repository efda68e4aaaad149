package eval

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"strconv"
	"strings"

	"golang.org/x/tools/go/ast/astutil"
)

// The names the rewritten cells call; the session declares them in the
// interpreter (guard.go). The double underscore keeps them out of the way
// of any name a cell would choose.
const (
	goName   = "__veclab_go"   // go statements: recover, register, interrupt
	doneName = "__veclab_done" // the calling goroutine's interrupt channel
	stopName = "__veclab_stop" // raise the interrupt
	waitName = "__veclab_wait" // wait for a channel (or the interrupt), keeping the value
	chanName = "__veclab_c"    // temporaries of rewritten receives, numbered
	bindName = "__veclab_bind" // record the Run of the goroutine that evaluates cells
	// checkName is what a cell's check(err) calls, with the call's cell
	// line added: it fails the cell with err's message and that line.
	checkName = "__veclab_check"
	// CheckName is the predeclared function a cell calls to fail with an
	// error: check(err) stops the cell when err is not nil, and the error
	// names err's message and the cell line of the call (instead of the
	// three lines of if err != nil { panic(err) } and a Go panic's text).
	CheckName = "check"
)

// builtins cannot be passed as values: a go statement calling one is left
// as it is (gomacro runs it without the recovering wrapper).
var builtins = map[string]bool{"append": true, "cap": true, "clear": true, "close": true, "complex": true,
	"copy": true, "delete": true, "imag": true, "len": true, "make": true, "max": true, "min": true,
	"new": true, "panic": true, "print": true, "println": true, "real": true, "recover": true}

// rewriter rewrites a parsed cell before gomacro compiles it, so that
// what gomacro cannot do by itself happens in code we own:
//
//   - go f(a, b) becomes go __veclab_go(f, []interface{}{a, b}, nil, "go f(a, b)"):
//     f and its arguments are still evaluated by the go statement, in the
//     caller (Go's order), and the goroutine runs f through a compiled
//     wrapper that recovers a panic, registers the goroutine for
//     interrupts and reports how it ended (gomacro's own go statement has
//     no recover: a panic there ends the process). With f(xs...) the
//     slice goes third.
//   - a select without a default gets one more case,
//     case <-__veclab_done(): __veclab_stop(), so an interrupt ends the wait.
//   - a receive statement (<-ch, v = <-ch, v, ok = <-ch) becomes such a
//     select; v := <-ch and v, ok := <-ch (where a statement can be put
//     before them) first wait through __veclab_wait(&tmp), which receives
//     from ch or raises the interrupt and leaves in tmp a channel holding
//     the value received (or closed, if ch was), then receive from tmp:
//     the same value and ok, at once, without knowing ch's type.
//
// Receives elsewhere (inside an expression, in an if or for header, a
// for range over a channel) still block until they complete.
//   - check(err) becomes __veclab_check(err, line), line the call's
//     line in the cell, so that the failure can point at it.
type rewriter struct {
	next *int // the session's temporaries counter
	n    int  // rewrites done
	// line returns the cell line of a position (0 when unknown).
	line func(token.Pos) int
}

// stmts rewrites a statement list in place and returns it (with the
// statements inserted before rewritten := receives).
func (rw *rewriter) stmts(list []ast.Stmt) []ast.Stmt {
	block := &ast.BlockStmt{List: list}
	astutil.Apply(block, nil, rw.post)
	return block.List
}

// node rewrites a declaration (or any node that is not a top-level
// statement) in place.
func (rw *rewriter) node(n ast.Node) {
	astutil.Apply(n, nil, rw.post)
}

func (rw *rewriter) post(c *astutil.Cursor) bool {
	switch n := c.Node().(type) {
	case *ast.CallExpr:
		if id, ok := n.Fun.(*ast.Ident); ok && id.Name == CheckName && len(n.Args) == 1 && n.Ellipsis == token.NoPos {
			line := 0
			if rw.line != nil {
				line = rw.line(n.Pos())
			}
			n.Fun = &ast.Ident{Name: checkName, NamePos: id.NamePos}
			n.Args = append(n.Args, &ast.BasicLit{ValuePos: n.Rparen, Kind: token.INT, Value: strconv.Itoa(line)})
			rw.n++
		}
	case *ast.GoStmt:
		rw.goStmt(n)
	case *ast.SelectStmt:
		if n.Body == nil {
			return true
		}
		for _, cl := range n.Body.List {
			if cc, ok := cl.(*ast.CommClause); ok && cc.Comm == nil {
				return true // a default: never blocks
			}
		}
		n.Body.List = append(n.Body.List, doneClause())
		rw.n++
	case *ast.ExprStmt:
		if isComm(c) {
			return true
		}
		if u, ok := n.X.(*ast.UnaryExpr); ok && u.Op == token.ARROW {
			c.Replace(selectOf(&ast.ExprStmt{X: u}))
			rw.n++
		}
	case *ast.AssignStmt:
		if isComm(c) || len(n.Rhs) != 1 || len(n.Lhs) > 2 {
			return true
		}
		u, ok := n.Rhs[0].(*ast.UnaryExpr)
		if !ok || u.Op != token.ARROW {
			return true
		}
		switch n.Tok {
		case token.ASSIGN:
			c.Replace(selectOf(n))
			rw.n++
		case token.DEFINE:
			if c.Index() < 0 {
				return true // an if/for/switch header: no room for a statement before it
			}
			*rw.next++
			tmp := fmt.Sprintf("%s%d", chanName, *rw.next)
			// gomacro orders a cell's top-level statements by position:
			// the two inserted ones take the two positions before this one.
			p1 := max(n.Pos()-1, 2)
			p2 := p1 - 1
			c.InsertBefore(&ast.AssignStmt{Lhs: []ast.Expr{&ast.Ident{Name: tmp, NamePos: p2}}, TokPos: p2, Tok: token.DEFINE, Rhs: []ast.Expr{u.X}})
			c.InsertBefore(&ast.ExprStmt{X: &ast.CallExpr{Fun: &ast.Ident{Name: waitName, NamePos: p1}, Lparen: p1, Rparen: p1,
				Args: []ast.Expr{&ast.UnaryExpr{OpPos: p1, Op: token.AND, X: &ast.Ident{Name: tmp, NamePos: p1}}}}})
			u.X = ast.NewIdent(tmp)
			rw.n++
		}
	}
	return true
}

// isComm reports whether the cursor is the communication of a select case
// (case <-ch:, case v := <-ch:), which must stay as it is.
func isComm(c *astutil.Cursor) bool {
	_, ok := c.Parent().(*ast.CommClause)
	return ok && c.Name() == "Comm"
}

func (rw *rewriter) goStmt(g *ast.GoStmt) {
	call0 := g.Call
	if call0 == nil {
		return
	}
	if id, ok := call0.Fun.(*ast.Ident); ok && (builtins[id.Name] || id.Name == goName) {
		return
	}
	args := call0.Args
	var spread ast.Expr = ast.NewIdent("nil")
	if call0.Ellipsis.IsValid() && len(args) > 0 {
		spread = args[len(args)-1]
		args = args[:len(args)-1]
	}
	list := &ast.CompositeLit{Type: &ast.ArrayType{Elt: &ast.InterfaceType{Methods: &ast.FieldList{}}}, Elts: args}
	where := &ast.BasicLit{Kind: token.STRING, Value: strconv.Quote(describe(g))}
	g.Call = &ast.CallExpr{Fun: ast.NewIdent(goName), Args: []ast.Expr{call0.Fun, list, spread, where}, Lparen: call0.Lparen, Rparen: call0.Rparen}
	rw.n++
}

// describe names a go statement for messages, as the cell wrote it (up
// to a long argument list).
func describe(g *ast.GoStmt) string {
	fun := types.ExprString(g.Call.Fun)
	if _, ok := g.Call.Fun.(*ast.FuncLit); ok {
		fun = "func(){…}" // ExprString prints "(func() literal)"
	}
	args := make([]string, len(g.Call.Args))
	for i, a := range g.Call.Args {
		args[i] = types.ExprString(a)
	}
	text := "go " + fun + "(" + strings.Join(args, ", ") + ")"
	if len(text) > 80 {
		text = text[:77] + "…"
	}
	return text
}

func call(name string, args ...ast.Expr) *ast.CallExpr {
	return &ast.CallExpr{Fun: ast.NewIdent(name), Args: args}
}

// doneClause is case <-__veclab_done(): __veclab_stop().
func doneClause() *ast.CommClause {
	return &ast.CommClause{
		Comm: &ast.ExprStmt{X: &ast.UnaryExpr{Op: token.ARROW, X: call(doneName)}},
		Body: []ast.Stmt{&ast.ExprStmt{X: call(stopName)}},
	}
}

// selectOf is select { case comm: ; case <-__veclab_done(): __veclab_stop() },
// at comm's position.
func selectOf(comm ast.Stmt) *ast.SelectStmt {
	return &ast.SelectStmt{Select: comm.Pos(), Body: &ast.BlockStmt{List: []ast.Stmt{
		&ast.CommClause{Comm: comm},
		doneClause(),
	}}}
}
