//go:build !purego

#include "textflag.h"

// func gemvTAVX512(m, n int, a []float32, lda int, x []float32, incX int, y []float32)
//
// Chunks of 16 columns, the last under the mask K1 of its min(16, n − j0)
// lanes (a masked load does not fault on the lanes it leaves out). Within
// a chunk, four accumulators take rows p ≡ 0, 1, 2, 3 mod 4, added up at
// the end with y's chunk.
//
// Registers: R12 m, DX columns left, DI &a[0][j0], R9 lda bytes, SI &x[0],
// R8 incX bytes, R10 &y[j0], BX and R13 the a and x walkers, AX the row
// counter, CX and R11 the mask's computation.
TEXT ·gemvTAVX512(SB), NOSPLIT, $0-104
	MOVQ m+0(FP), R12
	MOVQ n+8(FP), DX
	MOVQ a_base+16(FP), DI
	MOVQ lda+40(FP), R9
	SHLQ $2, R9
	MOVQ x_base+48(FP), SI
	MOVQ incX+72(FP), R8
	SHLQ $2, R8
	MOVQ y_base+80(FP), R10

chunk:
	MOVQ  $16, CX
	CMPQ  DX, CX
	CMOVQLT DX, CX
	MOVQ  $1, R11
	SHLQ  CX, R11
	DECQ  R11
	KMOVW R11, K1

	VMOVUPS.Z (R10), K1, Z0
	VPXORD    Z1, Z1, Z1
	VPXORD    Z2, Z2, Z2
	VPXORD    Z3, Z3, Z3
	MOVQ      DI, BX
	MOVQ      SI, R13
	MOVQ      R12, AX
	SHRQ      $2, AX
	JZ        rest

loop4:
	VBROADCASTSS (R13), Z4
	VMOVUPS.Z    (BX), K1, Z8
	VFMADD231PS  Z8, Z4, Z0
	ADDQ         R8, R13
	ADDQ         R9, BX
	VBROADCASTSS (R13), Z5
	VMOVUPS.Z    (BX), K1, Z9
	VFMADD231PS  Z9, Z5, Z1
	ADDQ         R8, R13
	ADDQ         R9, BX
	VBROADCASTSS (R13), Z6
	VMOVUPS.Z    (BX), K1, Z10
	VFMADD231PS  Z10, Z6, Z2
	ADDQ         R8, R13
	ADDQ         R9, BX
	VBROADCASTSS (R13), Z7
	VMOVUPS.Z    (BX), K1, Z11
	VFMADD231PS  Z11, Z7, Z3
	ADDQ         R8, R13
	ADDQ         R9, BX
	DECQ         AX
	JNZ          loop4

rest:
	MOVQ R12, AX
	ANDQ $3, AX
	JZ   sum

loop1:
	VBROADCASTSS (R13), Z4
	VMOVUPS.Z    (BX), K1, Z8
	VFMADD231PS  Z8, Z4, Z0
	ADDQ         R8, R13
	ADDQ         R9, BX
	DECQ         AX
	JNZ          loop1

sum:
	VADDPS  Z1, Z0, Z0
	VADDPS  Z3, Z2, Z2
	VADDPS  Z2, Z0, Z0
	VMOVUPS Z0, K1, (R10)
	ADDQ    $64, DI
	ADDQ    $64, R10
	SUBQ    $16, DX
	JG      chunk

	VZEROUPPER
	RET
