//go:build !purego

#include "textflag.h"

// func transposeLowerAVX2(n4 int, src []float64, lds int, dst []float64, ldd int)
//
// The 4 × 4 tiles strictly below the diagonal of the first n4 rows of src
// (n4 a multiple of 4), each loaded as 4 row vectors, transposed in
// registers (VUNPCKLPD/VUNPCKHPD, then VPERM2F128) and stored as 4 rows
// of the mirrored tile of dst. The diagonal tiles are left to the caller.
//
// Registers: CX n4, SI src, R8 lds bytes, R13 3·lds bytes, DI dst, R9 ldd
// bytes, BX 3·ldd bytes, R10 the tile row I, R11 tiles left in it, R12
// &src[I][K], R14 &dst[K][I].
TEXT ·transposeLowerAVX2(SB), NOSPLIT, $0-72
	MOVQ n4+0(FP), CX
	MOVQ src_base+8(FP), SI
	MOVQ lds+32(FP), R8
	SHLQ $3, R8
	LEAQ (R8)(R8*2), R13
	MOVQ dst_base+40(FP), DI
	MOVQ ldd+64(FP), R9
	SHLQ $3, R9
	LEAQ (R9)(R9*2), BX
	MOVQ $4, R10

outer:
	CMPQ  R10, CX
	JGE   done
	MOVQ  R10, AX
	IMULQ R8, AX
	LEAQ  (SI)(AX*1), R12
	LEAQ  (DI)(R10*8), R14
	MOVQ  R10, R11
	SHRQ  $2, R11

inner:
	VMOVUPD    (R12), Y0
	VMOVUPD    (R12)(R8*1), Y1
	VMOVUPD    (R12)(R8*2), Y2
	VMOVUPD    (R12)(R13*1), Y3
	VUNPCKLPD  Y1, Y0, Y4
	VUNPCKHPD  Y1, Y0, Y5
	VUNPCKLPD  Y3, Y2, Y6
	VUNPCKHPD  Y3, Y2, Y7
	VPERM2F128 $0x20, Y6, Y4, Y8
	VPERM2F128 $0x20, Y7, Y5, Y9
	VPERM2F128 $0x31, Y6, Y4, Y10
	VPERM2F128 $0x31, Y7, Y5, Y11
	VMOVUPD    Y8, (R14)
	VMOVUPD    Y9, (R14)(R9*1)
	VMOVUPD    Y10, (R14)(R9*2)
	VMOVUPD    Y11, (R14)(BX*1)
	ADDQ       $32, R12
	LEAQ       (R14)(R9*4), R14
	DECQ       R11
	JNZ        inner
	ADDQ       $4, R10
	JMP        outer

done:
	VZEROUPPER
	RET
