package pglive

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/veclab/veclab/internal/checkout"
)

// Errors callers can branch on; each is wrapped with what to do.
var (
	ErrNoNode      = errors.New("pglive: node not found")
	ErrNoPackages  = errors.New("pglive: the embedded server's npm packages are not installed")
	ErrPortInUse   = errors.New("pglive: port in use")
	ErrNoVector    = errors.New("pglive: the server has no pgvector extension")
	ErrAuth        = errors.New("pglive: authentication failed")
	ErrServer      = errors.New("pglive: embedded server failed")
	ErrBadArgument = errors.New("pglive: invalid argument")
)

// serverRel is the server directory inside the module.
const serverRel = "lab/pglive/server"

// The npm packages server.mjs imports; their versions are pinned by
// server/package-lock.json.
var serverPackages = []string{"@electric-sql/pglite", "@electric-sql/pglite-socket"}

// ServerOptions configure [Start]. The zero value serves an in-memory
// database on a free loopback port.
type ServerOptions struct {
	// Dir is the server directory (server.mjs, package-lock.json and the
	// node_modules `npm ci` installs). "" means $VECLAB_PGLIVE_DIR, else
	// lab/pglive/server of the veclab checkout containing the working
	// directory.
	Dir string
	// Node is the node executable ("" means "node" on PATH).
	Node string
	// Port is the loopback port to listen on; 0 picks a free one.
	Port int
	// DataDir keeps the database between runs ("": in memory).
	DataDir string
	// NoVector serves PostgreSQL without loading the vector extension: a
	// server on which CREATE EXTENSION vector fails, as on a PostgreSQL
	// without pgvector installed (the tests of that error use it).
	NoVector bool
	// StartTimeout bounds the wait for the server to listen (default 60 s;
	// PGlite compiles its WebAssembly first).
	StartTimeout time.Duration
	// Log, when set, receives the server's stderr.
	Log io.Writer
}

// Server is a running embedded PostgreSQL (PGlite over a loopback socket).
type Server struct {
	// URL connects to it with [Connect] (user postgres, any password).
	URL string
	// Addr is host:port it listens on; Version is PostgreSQL's version.
	Addr, Version string

	cmd   *exec.Cmd
	stdin io.WriteCloser
	done  chan struct{} // closed when the process has exited
	werr  error         // its exit status, set before done closes
	once  sync.Once
}

// ServerDir resolves the server directory as [ServerOptions.Dir] documents.
func ServerDir(dir string) (string, error) {
	if dir == "" {
		dir = os.Getenv("VECLAB_PGLIVE_DIR")
	}
	if dir != "" {
		if _, err := os.Stat(filepath.Join(dir, "server.mjs")); err != nil {
			return "", fmt.Errorf("pglive: %s has no server.mjs (want the directory lab/pglive/server of a veclab checkout): %w", dir, ErrBadArgument)
		}
		return dir, nil
	}
	d, err := checkout.Find()
	if err != nil {
		return "", fmt.Errorf("pglive: %v, so no embedded server: run in a checkout, set VECLAB_PGLIVE_DIR to its %s, or connect to your own PostgreSQL with a postgres:// URL: %w", err, serverRel, ErrBadArgument)
	}
	s := filepath.Join(d, filepath.FromSlash(serverRel))
	if _, err := os.Stat(filepath.Join(s, "server.mjs")); err != nil {
		return "", fmt.Errorf("pglive: the veclab checkout at %s has no %s/server.mjs: %w", d, serverRel, ErrBadArgument)
	}
	return s, nil
}

// CheckServer reports what is missing to start the embedded server in dir
// (resolved by [ServerDir]): node, or the npm packages. It starts nothing.
func CheckServer(opt ServerOptions) (dir, node string, err error) {
	dir, err = ServerDir(opt.Dir)
	if err != nil {
		return "", "", err
	}
	node = opt.Node
	if node == "" {
		node = "node"
	}
	if node, err = exec.LookPath(node); err != nil {
		return dir, "", fmt.Errorf("pglive: (%v): the embedded PostgreSQL runs on Node.js 18 or later: install it (Debian: apt-get install nodejs npm), or connect to your own PostgreSQL with a postgres:// URL: %w", err, ErrNoNode)
	}
	for _, p := range serverPackages {
		if _, err := os.Stat(filepath.Join(dir, "node_modules", filepath.FromSlash(p), "package.json")); err != nil {
			return dir, node, fmt.Errorf("pglive: %s is missing from %s: run `npm ci` in that directory (it installs the versions package-lock.json pins): %w", p, filepath.Join(dir, "node_modules"), ErrNoPackages)
		}
	}
	return dir, node, nil
}

// Start runs the embedded server and returns when it listens. Close stops
// it; it also stops by itself when this process exits (it watches its
// stdin).
func Start(ctx context.Context, opt ServerOptions) (*Server, error) {
	if opt.Port < 0 || opt.Port > 65535 {
		return nil, fmt.Errorf("pglive: port %d outside 0…65535: %w", opt.Port, ErrBadArgument)
	}
	dir, node, err := CheckServer(opt)
	if err != nil {
		return nil, err
	}
	args := []string{"server.mjs", "--host", "127.0.0.1", "--port", fmt.Sprint(opt.Port)}
	if opt.DataDir != "" {
		abs, err := filepath.Abs(opt.DataDir)
		if err != nil {
			return nil, err
		}
		args = append(args, "--data", abs)
	}
	if opt.NoVector {
		args = append(args, "--no-vector")
	}
	cmd := exec.Command(node, args...)
	cmd.Dir = dir
	ownGroup(cmd)
	if opt.Log != nil {
		cmd.Stderr = opt.Log
	}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("pglive: starting %s: %v: %w", node, err, ErrServer)
	}
	s := &Server{cmd: cmd, stdin: stdin, done: make(chan struct{})}
	lines := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		first := true
		for sc.Scan() {
			if first && strings.HasPrefix(sc.Text(), "veclab-pglive ") {
				lines <- sc.Text()
				first = false
			}
		}
		close(lines)
	}()
	go func() {
		s.werr = cmd.Wait()
		close(s.done)
	}()
	timeout := opt.StartTimeout
	if timeout <= 0 {
		timeout = time.Minute
	}
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case line, ok := <-lines:
		if !ok {
			<-s.done
			return nil, fmt.Errorf("pglive: %s exited before listening (%v); run `node server.mjs` in %s to see why: %w", node, s.werr, dir, ErrServer)
		}
		if err := s.ready(line, opt.Port); err != nil {
			s.Close()
			return nil, err
		}
		return s, nil
	case <-t.C:
		s.Close()
		return nil, fmt.Errorf("pglive: not listening after %v: %w", timeout, ErrServer)
	case <-ctx.Done():
		s.Close()
		return nil, ctx.Err()
	}
}

// ready reads server.mjs's first line: "veclab-pglive ready HOST:PORT
// postgres=VERSION" or "veclab-pglive error CODE MESSAGE".
func (s *Server) ready(line string, port int) error {
	f := strings.Fields(line)
	switch {
	case len(f) >= 3 && f[1] == "ready":
		s.Addr = f[2]
		for _, kv := range f[3:] {
			if v, ok := strings.CutPrefix(kv, "postgres="); ok {
				s.Version = v
			}
		}
		s.URL = "postgres://postgres@" + s.Addr + "/postgres?sslmode=disable"
		return nil
	case len(f) >= 3 && f[1] == "error" && f[2] == "EADDRINUSE":
		return fmt.Errorf("pglive: 127.0.0.1:%d is taken by another program: choose another port, or 0 for any free one: %w", port, ErrPortInUse)
	case len(f) >= 3 && f[1] == "error":
		return fmt.Errorf("pglive: %s: %w", strings.Join(f[2:], " "), ErrServer)
	}
	return fmt.Errorf("pglive: unexpected first line %q: %w", line, ErrServer)
}

// Close stops the server (closing its stdin, then killing it after 5 s)
// and waits for it to exit. It is safe to call more than once.
func (s *Server) Close() error {
	if s == nil || s.cmd == nil {
		return nil
	}
	s.once.Do(func() {
		s.stdin.Close()
		select {
		case <-s.done:
		case <-time.After(5 * time.Second):
			s.cmd.Process.Kill()
			<-s.done
		}
	})
	return nil
}
