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
// the bytes to crc. On little-endian hosts it reads straight into dst's
// memory (no copy, no per-element decoding).
func readFloats(r io.Reader, crc hash.Hash32, dst []float64) error {
	if len(dst) == 0 {
		return nil
	}
	if littleEndian {
		const chunk = 1 << 20 // floats per read: the checksum stays in cache
		for p := 0; p < len(dst); p += chunk {
			part := dst[p:min(p+chunk, len(dst))]
			b := unsafe.Slice((*byte)(unsafe.Pointer(&part[0])), 8*len(part))
			if _, err := io.ReadFull(r, b); err != nil {
				return err
			}
			crc.Write(b)
		}
		return nil
	}
	buf := make([]byte, 1<<16)
	for p := 0; p < len(dst); {
		k := min(len(buf)/8, len(dst)-p)
		b := buf[:8*k]
		if _, err := io.ReadFull(r, b); err != nil {
			return err
		}
		crc.Write(b)
		for q := range k {
			dst[p+q] = math.Float64frombits(binary.LittleEndian.Uint64(b[8*q:]))
		}
		p += k
	}
	return nil
}
