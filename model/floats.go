package model

import (
	"encoding/binary"
	"hash"
	"io"
	"math"
	"unsafe"
)

// littleEndian is true on little-endian hosts, where a float64 array's
// memory is its file encoding.
var littleEndian = binary.NativeEndian.Uint16([]byte{1, 0}) == 1

// readFloats fills dst with little-endian float64s read from r, feeding
// the bytes to crc, and returns the index of the first NaN or infinity
// (−1 for none). On little-endian hosts it reads straight into dst's
// memory (no copy, no per-element decoding), in chunks small enough that
// the checksum and the finiteness check find them in cache.
func readFloats(r io.Reader, crc hash.Hash32, dst []float64) (int, error) {
	bad := -1
	if len(dst) == 0 {
		return bad, nil
	}
	if littleEndian {
		const chunk = 1 << 15 // floats per read (256 KiB)
		for p := 0; p < len(dst); p += chunk {
			part := dst[p:min(p+chunk, len(dst))]
			b := unsafe.Slice((*byte)(unsafe.Pointer(&part[0])), 8*len(part))
			if _, err := io.ReadFull(r, b); err != nil {
				return bad, err
			}
			crc.Write(b)
			if q := firstNonFinite(part); q >= 0 && bad < 0 {
				bad = p + q
			}
		}
		return bad, nil
	}
	buf := make([]byte, 1<<16)
	for p := 0; p < len(dst); {
		k := min(len(buf)/8, len(dst)-p)
		b := buf[:8*k]
		if _, err := io.ReadFull(r, b); err != nil {
			return bad, err
		}
		crc.Write(b)
		for q := range k {
			dst[p+q] = math.Float64frombits(binary.LittleEndian.Uint64(b[8*q:]))
		}
		p += k
	}
	return firstNonFinite(dst), nil
}
