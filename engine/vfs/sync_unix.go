//go:build unix

package vfs

import "syscall"

var errInvalidSync error = syscall.EINVAL
