//go:build !purego

#include "textflag.h"

// axpymask<>+8·(4−r) is a mask of the first r of 4 lanes.
DATA axpymask<>+0(SB)/8, $-1
DATA axpymask<>+8(SB)/8, $-1
DATA axpymask<>+16(SB)/8, $-1
DATA axpymask<>+24(SB)/8, $-1
DATA axpymask<>+32(SB)/8, $0
DATA axpymask<>+40(SB)/8, $0
DATA axpymask<>+48(SB)/8, $0
DATA axpymask<>+56(SB)/8, $0
GLOBL axpymask<>(SB), RODATA|NOPTR, $64

// func axpyAVX2(alpha float64, x, y []float64)
TEXT ·axpyAVX2(SB), NOSPLIT, $0-56
	VBROADCASTSD alpha+0(FP), Y15
	MOVQ         x_base+8(FP), SI
	MOVQ         x_len+16(FP), CX
	MOVQ         y_base+32(FP), DI
	MOVQ         CX, AX
	SHRQ         $4, AX
	JZ           by4

loop16:
	VMOVUPD     (DI), Y0
	VMOVUPD     32(DI), Y1
	VMOVUPD     64(DI), Y2
	VMOVUPD     96(DI), Y3
	VFMADD231PD (SI), Y15, Y0
	VFMADD231PD 32(SI), Y15, Y1
	VFMADD231PD 64(SI), Y15, Y2
	VFMADD231PD 96(SI), Y15, Y3
	VMOVUPD     Y0, (DI)
	VMOVUPD     Y1, 32(DI)
	VMOVUPD     Y2, 64(DI)
	VMOVUPD     Y3, 96(DI)
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
	VMOVUPD     (DI), Y0
	VFMADD231PD (SI), Y15, Y0
	VMOVUPD     Y0, (DI)
	ADDQ        $32, SI
	ADDQ        $32, DI
	DECQ        AX
	JNZ         loop4

tail:
	ANDQ        $3, CX
	JZ          done
	LEAQ        axpymask<>(SB), AX
	NEGQ        CX
	VMOVUPD     32(AX)(CX*8), Y6
	VMASKMOVPD  (DI), Y6, Y0
	VMASKMOVPD  (SI), Y6, Y1
	VFMADD231PD Y1, Y15, Y0
	VMASKMOVPD  Y0, Y6, (DI)

done:
	VZEROUPPER
	RET
