package engine

import (
	"math"
	"sync/atomic"
)

// atomicF32 is a float32 read and written atomically (its bits in a
// uint32), for bounds read on a search's hot path without a lock.
type atomicF32 struct{ bits atomic.Uint32 }

func (a *atomicF32) Load() float32   { return math.Float32frombits(a.bits.Load()) }
func (a *atomicF32) Store(v float32) { a.bits.Store(math.Float32bits(v)) }
