//go:build !purego

#include "textflag.h"

// gemvtmask<>+8·(4−r) is a mask of the first r of 4 lanes.
DATA gemvtmask<>+0(SB)/8, $-1
DATA gemvtmask<>+8(SB)/8, $-1
DATA gemvtmask<>+16(SB)/8, $-1
DATA gemvtmask<>+24(SB)/8, $-1
DATA gemvtmask<>+32(SB)/8, $0
DATA gemvtmask<>+40(SB)/8, $0
DATA gemvtmask<>+48(SB)/8, $0
DATA gemvtmask<>+56(SB)/8, $0
GLOBL gemvtmask<>(SB), RODATA|NOPTR, $64

// func gemvTAVX2(m, n int, alpha float64, a []float64, lda int, x []float64, incX int, y []float64)
//
// y += alpha·Aᵀx. Each x[i] is multiplied by alpha once per chunk, before
// it is broadcast. Columns in chunks of 16, then 4, then a masked chunk of n mod 4: each
// chunk of y stays in registers while the m rows stream past, even rows
// into one set of accumulators and odd rows into another (two chains per
// register, to cover the FMA latency).
TEXT ·gemvTAVX2(SB), NOSPLIT, $0-112
	MOVQ m+0(FP), CX
	MOVQ   n+8(FP), DX
	VMOVSD alpha+16(FP), X14
	MOVQ   a_base+24(FP), SI
	MOVQ   lda+48(FP), R8
	SHLQ   $3, R8
	MOVQ   x_base+56(FP), DI
	MOVQ   incX+80(FP), R9
	SHLQ   $3, R9
	MOVQ   y_base+88(FP), R10

cols16:
	CMPQ    DX, $16
	JLT     cols4
	VMOVUPD (R10), Y0
	VMOVUPD 32(R10), Y1
	VMOVUPD 64(R10), Y2
	VMOVUPD 96(R10), Y3
	VXORPD  Y4, Y4, Y4
	VXORPD  Y5, Y5, Y5
	VXORPD  Y6, Y6, Y6
	VXORPD  Y7, Y7, Y7
	MOVQ    SI, R12
	MOVQ    DI, R13
	MOVQ    CX, AX
	SHRQ    $1, AX
	JZ      cols16odd

cols16loop:
	VMULSD       (R13), X14, X8
	VBROADCASTSD X8, Y8
	VFMADD231PD  (R12), Y8, Y0
	VFMADD231PD  32(R12), Y8, Y1
	VFMADD231PD  64(R12), Y8, Y2
	VFMADD231PD  96(R12), Y8, Y3
	ADDQ         R9, R13
	ADDQ         R8, R12
	VMULSD       (R13), X14, X9
	VBROADCASTSD X9, Y9
	VFMADD231PD  (R12), Y9, Y4
	VFMADD231PD  32(R12), Y9, Y5
	VFMADD231PD  64(R12), Y9, Y6
	VFMADD231PD  96(R12), Y9, Y7
	ADDQ         R9, R13
	ADDQ         R8, R12
	DECQ         AX
	JNZ          cols16loop

cols16odd:
	TESTQ        $1, CX
	JZ           cols16store
	VMULSD       (R13), X14, X8
	VBROADCASTSD X8, Y8
	VFMADD231PD  (R12), Y8, Y0
	VFMADD231PD  32(R12), Y8, Y1
	VFMADD231PD  64(R12), Y8, Y2
	VFMADD231PD  96(R12), Y8, Y3

cols16store:
	VADDPD  Y4, Y0, Y0
	VADDPD  Y5, Y1, Y1
	VADDPD  Y6, Y2, Y2
	VADDPD  Y7, Y3, Y3
	VMOVUPD Y0, (R10)
	VMOVUPD Y1, 32(R10)
	VMOVUPD Y2, 64(R10)
	VMOVUPD Y3, 96(R10)
	ADDQ    $128, SI
	ADDQ    $128, R10
	SUBQ    $16, DX
	JMP     cols16

cols4:
	CMPQ    DX, $4
	JLT     colstail
	VMOVUPD (R10), Y0
	VXORPD  Y1, Y1, Y1
	MOVQ    SI, R12
	MOVQ    DI, R13
	MOVQ    CX, AX
	SHRQ    $1, AX
	JZ      cols4odd

cols4loop:
	VMULSD       (R13), X14, X8
	VBROADCASTSD X8, Y8
	VFMADD231PD  (R12), Y8, Y0
	ADDQ         R9, R13
	ADDQ         R8, R12
	VMULSD       (R13), X14, X9
	VBROADCASTSD X9, Y9
	VFMADD231PD  (R12), Y9, Y1
	ADDQ         R9, R13
	ADDQ         R8, R12
	DECQ         AX
	JNZ          cols4loop

cols4odd:
	TESTQ        $1, CX
	JZ           cols4store
	VMULSD       (R13), X14, X8
	VBROADCASTSD X8, Y8
	VFMADD231PD  (R12), Y8, Y0

cols4store:
	VADDPD  Y1, Y0, Y0
	VMOVUPD Y0, (R10)
	ADDQ    $32, SI
	ADDQ    $32, R10
	SUBQ    $4, DX
	JMP     cols4

colstail:
	TESTQ      DX, DX
	JZ         done
	LEAQ       gemvtmask<>(SB), AX
	NEGQ       DX
	VMOVUPD    32(AX)(DX*8), Y15
	VMASKMOVPD (R10), Y15, Y0
	MOVQ       SI, R12
	MOVQ       DI, R13
	MOVQ       CX, AX

tailloop:
	VMULSD       (R13), X14, X8
	VBROADCASTSD X8, Y8
	VMASKMOVPD   (R12), Y15, Y9
	VFMADD231PD  Y9, Y8, Y0
	ADDQ         R9, R13
	ADDQ         R8, R12
	DECQ         AX
	JNZ          tailloop
	VMASKMOVPD   Y0, Y15, (R10)

done:
	VZEROUPPER
	RET
