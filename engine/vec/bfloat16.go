package vec

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/veclab/veclab/engine"
)

// BFloat16Bytes is the size of one bfloat16 value: the upper half of a
// float32 (sign, 8-bit exponent, 7-bit fraction), so a vector of dim
// components stored as bfloat16 takes 2·dim bytes, half its float32 size.
const BFloat16Bytes = 2

// bf16NaN is the bfloat16 that every NaN encodes to: the upper half of
// Java's canonical Float.NaN (0x7fc00000), which Float.floatToIntBits
// returns for every NaN before Elasticsearch rounds it.
const bf16NaN = 0x7fc0

// ToBFloat16 rounds f to the nearest bfloat16, ties to even: the
// conversion Elasticsearch applies to a dense_vector's stored floats
// with element_type bfloat16 (libs/simdvec BFloat16Support.floatToBFloat16,
// elastic/elasticsearch at ab4de8b5: bits + 0x7fff + ((bits >> 16) & 1),
// then the upper 16 bits; its earlier server/…/codec/vectors/BFloat16.java,
// at d8fa2e12, truncated towards zero instead). A value beyond the
// largest bfloat16 rounds to ±Inf, ±Inf stays ±Inf, and every NaN
// becomes the one quiet NaN 0x7fc0 (Java's floatToIntBits canonicalises
// NaN first, so rounding never turns a NaN into an infinity).
func ToBFloat16(f float32) uint16 {
	if f != f {
		return bf16NaN
	}
	bits := math.Float32bits(f)
	bits += 0x7fff + (bits>>16)&1
	return uint16(bits >> 16)
}

// FromBFloat16 widens a bfloat16 to the float32 it stands for: its bits
// in the upper half, zeros below. Exact.
func FromBFloat16(h uint16) float32 { return math.Float32frombits(uint32(h) << 16) }

// EncodeBFloat16 appends v to dst as bfloat16 values, 2 bytes each,
// little-endian (Lucene's byte order; Elasticsearch reads them with
// ByteOrder.LITTLE_ENDIAN), each rounded by [ToBFloat16], and returns the
// extended slice.
func EncodeBFloat16(dst []byte, v []float32) []byte {
	for _, f := range v {
		dst = binary.LittleEndian.AppendUint16(dst, ToBFloat16(f))
	}
	return dst
}

// DecodeBFloat16 widens the little-endian bfloat16 values of src into
// dst, which must hold exactly len(src)/2 components, and returns dst.
// An odd number of bytes is not a whole number of values and wraps
// engine.ErrCorrupt; a dst of another length wraps engine.ErrDimension.
func DecodeBFloat16(dst []float32, src []byte) ([]float32, error) {
	if len(src)%BFloat16Bytes != 0 {
		return nil, fmt.Errorf("vec: %d bytes are not a whole number of 2-byte bfloat16 values: %w", len(src), engine.ErrCorrupt)
	}
	if len(dst) != len(src)/BFloat16Bytes {
		return nil, fmt.Errorf("vec: %d bfloat16 values into %d components: %w", len(src)/BFloat16Bytes, len(dst), engine.ErrDimension)
	}
	for i := range dst {
		dst[i] = FromBFloat16(binary.LittleEndian.Uint16(src[BFloat16Bytes*i:]))
	}
	return dst, nil
}
