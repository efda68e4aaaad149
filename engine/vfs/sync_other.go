//go:build !unix

package vfs

import "errors"

var errInvalidSync = errors.New("vfs: directory sync unsupported")
