//go:build !purego

#include "textflag.h"

// dotmask<>+8·(4−r) is a mask of the first r of 4 lanes.
DATA dotmask<>+0(SB)/8, $-1
DATA dotmask<>+8(SB)/8, $-1
DATA dotmask<>+16(SB)/8, $-1
DATA dotmask<>+24(SB)/8, $-1
DATA dotmask<>+32(SB)/8, $0
DATA dotmask<>+40(SB)/8, $0
DATA dotmask<>+48(SB)/8, $0
DATA dotmask<>+56(SB)/8, $0
GLOBL dotmask<>(SB), RODATA|NOPTR, $64

// func dotAVX2(x, y []float64) float64
TEXT ·dotAVX2(SB), NOSPLIT, $0-56
	MOVQ   x_base+0(FP), SI
	MOVQ   x_len+8(FP), CX
	MOVQ   y_base+24(FP), DI
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3
	MOVQ   CX, AX
	SHRQ   $4, AX
	JZ     by4

loop16:
	VMOVUPD     (SI), Y4
	VMOVUPD     32(SI), Y5
	VMOVUPD     64(SI), Y6
	VMOVUPD     96(SI), Y7
	VFMADD231PD (DI), Y4, Y0
	VFMADD231PD 32(DI), Y5, Y1
	VFMADD231PD 64(DI), Y6, Y2
	VFMADD231PD 96(DI), Y7, Y3
	ADDQ        $128, SI
	ADDQ        $128, DI
	DECQ        AX
	JNZ         loop16

by4:
	MOVQ CX, AX
	ANDQ $15, AX
	SHRQ $2, AX
	JZ   tail

loop4:
	VMOVUPD     (SI), Y4
	VFMADD231PD (DI), Y4, Y0
	ADDQ        $32, SI
	ADDQ        $32, DI
	DECQ        AX
	JNZ         loop4

tail:
	ANDQ        $3, CX
	JZ          sum
	LEAQ        dotmask<>(SB), AX
	NEGQ        CX
	VMOVUPD     32(AX)(CX*8), Y6
	VMASKMOVPD  (SI), Y6, Y4
	VMASKMOVPD  (DI), Y6, Y5
	VFMADD231PD Y5, Y4, Y1

sum:
	VADDPD       Y1, Y0, Y0
	VADDPD       Y3, Y2, Y2
	VADDPD       Y2, Y0, Y0
	VEXTRACTF128 $1, Y0, X1
	VADDPD       X1, X0, X0
	VPERMILPD    $1, X0, X1
	VADDSD       X1, X0, X0
	VMOVSD       X0, ret+48(FP)
	VZEROUPPER
	RET
