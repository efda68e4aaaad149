//go:build js

package pglive

import (
	"errors"
	"fmt"
)

// parseURL under js/wasm: no connection is possible (a browser gives a
// WebAssembly program no TCP socket, and the embedded server is a node
// process), so pgx is left out of the module and every URL gets this error.
func parseURL(raw string) (wireConfig, error) { return nil, errNoWire }

// errNoWire is what Connect and Open return under js/wasm.
var errNoWire = fmt.Errorf("pglive: connecting to PostgreSQL is not available under js/wasm (the browser gives the kernel no TCP socket): run the notebook in the native kernel (veclab kernel, or veclab run) with VECLAB_PG: %w", errors.ErrUnsupported)

func serverError(error) (pgError, bool) { return pgError{}, false }
