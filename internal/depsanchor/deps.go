package depsanchor

import (
	_ "github.com/RoaringBitmap/roaring/v2"
	_ "github.com/cosmos72/gomacro/fast"
	_ "github.com/go-zeromq/zmq4"
	_ "github.com/vmihailenco/msgpack/v5"
	_ "golang.org/x/sys/cpu"
	_ "golang.org/x/tools/go/packages"
	_ "gonum.org/v1/gonum/mat"
)
