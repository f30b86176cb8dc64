//go:build !purego

#include "textflag.h"

// func gatherWidenAVX2(dst []float64, src []float32, n int, rows []int32, ahead int)
//
// gatherAVX2 (gather_amd64.s) converting each float32 to float64 as it
// copies: 4 at a time with VCVTPS2PD, the last n mod 4 one by one.
//
// Register use: DI dst, SI src, R9 source row bytes (4·n > 0), BX rows,
// DX k = len(rows) > 0, R8 ahead ≥ 0, R10 p, CX source bytes left in the
// row.
TEXT ·gatherWidenAVX2(SB), NOSPLIT, $0-88
	MOVQ dst_base+0(FP), DI
	MOVQ src_base+24(FP), SI
	MOVQ n+48(FP), R9
	SHLQ $2, R9
	MOVQ rows_base+56(FP), BX
	MOVQ rows_len+64(FP), DX
	MOVQ ahead+80(FP), R8

	// Prefetch the first min(ahead, k) rows.
	MOVQ    R8, R12
	CMPQ    R12, DX
	CMOVQGT DX, R12
	XORQ    R10, R10

prologue:
	CMPQ    R10, R12
	JGE     start
	MOVLQSX (BX)(R10*4), AX
	IMULQ   R9, AX
	ADDQ    SI, AX
	LEAQ    -1(AX)(R9*1), R13

pf0:
	PREFETCHT0 (AX)
	ADDQ       $64, AX
	CMPQ       AX, R13
	JLE        pf0
	PREFETCHT0 (R13)
	INCQ       R10
	JMP        prologue

start:
	XORQ R10, R10

loop:
	// Prefetch row p + ahead, if there is one.
	LEAQ    (R10)(R8*1), R11
	CMPQ    R11, DX
	JGE     copy
	MOVLQSX (BX)(R11*4), AX
	IMULQ   R9, AX
	ADDQ    SI, AX
	LEAQ    -1(AX)(R9*1), R13

pf1:
	PREFETCHT0 (AX)
	ADDQ       $64, AX
	CMPQ       AX, R13
	JLE        pf1
	PREFETCHT0 (R13)

copy:
	// Copy row p, widening.
	MOVLQSX (BX)(R10*4), AX
	IMULQ   R9, AX
	ADDQ    SI, AX
	MOVQ    R9, CX
	CMPQ    CX, $16
	JL      tail

by4:
	VCVTPS2PD (AX), Y0
	VMOVUPD   Y0, (DI)
	ADDQ      $16, AX
	ADDQ      $32, DI
	SUBQ      $16, CX
	CMPQ      CX, $16
	JGE       by4

tail:
	TESTQ    CX, CX
	JZ       next
	VMOVSS   (AX), X0
	VCVTSS2SD X0, X0, X0
	VMOVSD   X0, (DI)
	ADDQ     $4, AX
	ADDQ     $8, DI
	SUBQ     $4, CX
	JMP      tail

next:
	INCQ R10
	CMPQ R10, DX
	JL   loop

	VZEROUPPER
	RET
