//go:build !purego

#include "textflag.h"

// func trsmLower4AVX2(w4 int, b []float64, ldb int, coef []float64)
//
// TrsmLower4 on the first w4 columns (w4 a positive multiple of 4), 4
// columns at a time: the 4 rows' vectors of those columns are the
// unknowns, L's 6 entries and the 4 reciprocals of its diagonal stay
// broadcast in Y6–Y15. coef holds 1/l_00 … 1/l_33, then l_10, l_20, l_21,
// l_30, l_31, l_32.
//
// Registers: CX groups of 4 columns left, SI &b[0][j], R8 ldb bytes, R9
// 3·ldb bytes, BX coef.
TEXT ·trsmLower4AVX2(SB), NOSPLIT, $0-64
	MOVQ         w4+0(FP), CX
	SHRQ         $2, CX
	MOVQ         b_base+8(FP), SI
	MOVQ         ldb+32(FP), R8
	SHLQ         $3, R8
	LEAQ         (R8)(R8*2), R9
	MOVQ         coef_base+40(FP), BX
	VBROADCASTSD 0(BX), Y6
	VBROADCASTSD 8(BX), Y7
	VBROADCASTSD 16(BX), Y8
	VBROADCASTSD 24(BX), Y9
	VBROADCASTSD 32(BX), Y10
	VBROADCASTSD 40(BX), Y11
	VBROADCASTSD 48(BX), Y12
	VBROADCASTSD 56(BX), Y13
	VBROADCASTSD 64(BX), Y14
	VBROADCASTSD 72(BX), Y15

loop:
	VMOVUPD      (SI), Y0
	VMOVUPD      (SI)(R8*1), Y1
	VMOVUPD      (SI)(R8*2), Y2
	VMOVUPD      (SI)(R9*1), Y3
	VMULPD       Y6, Y0, Y0
	VFNMADD231PD Y10, Y0, Y1
	VMULPD       Y7, Y1, Y1
	VFNMADD231PD Y11, Y0, Y2
	VFNMADD231PD Y12, Y1, Y2
	VMULPD       Y8, Y2, Y2
	VFNMADD231PD Y13, Y0, Y3
	VFNMADD231PD Y14, Y1, Y3
	VFNMADD231PD Y15, Y2, Y3
	VMULPD       Y9, Y3, Y3
	VMOVUPD      Y0, (SI)
	VMOVUPD      Y1, (SI)(R8*1)
	VMOVUPD      Y2, (SI)(R8*2)
	VMOVUPD      Y3, (SI)(R9*1)
	ADDQ         $32, SI
	DECQ         CX
	JNZ          loop
	VZEROUPPER
	RET
