//go:build !linux

package store

import (
	"errors"
	"os"
)

// Off Linux the page-cache probe, eviction and direct I/O are unavailable:
// Open without NoCacheProbe maps nothing and counts no cached pages.

var errUnsupported = errors.New("store: page-cache control needs Linux")

const oDirect = -1

func sysMap(f *os.File, size int64) ([]byte, error) { return nil, errUnsupported }
func sysUnmap(b []byte) error                       { return nil }
func sysUnmapPages(b []byte) error                  { return nil }
func sysPopulate(b []byte) error                    { return nil }
func sysMincore(b, res []byte) error                { return errUnsupported }
func sysDropCache(f *os.File) error                 { return errUnsupported }
func sysAdviseRandom(f *os.File) error              { return nil }
