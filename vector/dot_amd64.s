//go:build !purego

#include "textflag.h"

// func dotAVX2(a, b []float32) float32
//
// The dot product of a and b[:len(a)] with AVX2 and FMA: four
// accumulators of eight lanes over blocks of 32, then blocks of 8, then
// one element at a time. The caller checks the CPU has both.
TEXT ·dotAVX2(SB), NOSPLIT, $0-52
	MOVQ a_base+0(FP), SI
	MOVQ a_len+8(FP), CX
	MOVQ b_base+24(FP), DI
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3

blocks32:
	CMPQ CX, $32
	JL   blocks8
	VMOVUPS (SI), Y4
	VMOVUPS 32(SI), Y5
	VMOVUPS 64(SI), Y6
	VMOVUPS 96(SI), Y7
	VFMADD231PS (DI), Y4, Y0
	VFMADD231PS 32(DI), Y5, Y1
	VFMADD231PS 64(DI), Y6, Y2
	VFMADD231PS 96(DI), Y7, Y3
	ADDQ $128, SI
	ADDQ $128, DI
	SUBQ $32, CX
	JMP  blocks32

blocks8:
	CMPQ CX, $8
	JL   reduce
	VMOVUPS (SI), Y4
	VFMADD231PS (DI), Y4, Y0
	ADDQ $32, SI
	ADDQ $32, DI
	SUBQ $8, CX
	JMP  blocks8

reduce:
	VADDPS Y1, Y0, Y0
	VADDPS Y3, Y2, Y2
	VADDPS Y2, Y0, Y0
	VEXTRACTF128 $1, Y0, X1
	VADDPS X1, X0, X0
	VHADDPS X0, X0, X0
	VHADDPS X0, X0, X0

ones:
	CMPQ CX, $0
	JE   done
	VMOVSS (SI), X1
	VFMADD231SS (DI), X1, X0
	ADDQ $4, SI
	ADDQ $4, DI
	DECQ CX
	JMP  ones

done:
	VZEROUPPER
	MOVSS X0, ret+48(FP)
	RET

// func dotInt8AVX2(x []int8, q []int16) int32
//
// The dot product of x and q[:len(x)] in integers, with AVX2: sixteen
// int8 widened to int16 at a time, multiplied by sixteen int16 and summed
// in pairs into eight int32 lanes (VPMADDWD), two accumulators over
// blocks of 32, then blocks of 16, then one element at a time. The caller
// keeps the sums within int32 (see quantizeQuery).
TEXT ·dotInt8AVX2(SB), NOSPLIT, $0-52
	MOVQ x_base+0(FP), SI
	MOVQ x_len+8(FP), CX
	MOVQ q_base+24(FP), DI
	VPXOR Y0, Y0, Y0
	VPXOR Y1, Y1, Y1

i8blocks32:
	CMPQ CX, $32
	JL   i8blocks16
	VPMOVSXBW (SI), Y2
	VPMOVSXBW 16(SI), Y3
	VPMADDWD (DI), Y2, Y2
	VPMADDWD 32(DI), Y3, Y3
	VPADDD Y2, Y0, Y0
	VPADDD Y3, Y1, Y1
	ADDQ $32, SI
	ADDQ $64, DI
	SUBQ $32, CX
	JMP  i8blocks32

i8blocks16:
	CMPQ CX, $16
	JL   i8reduce
	VPMOVSXBW (SI), Y2
	VPMADDWD (DI), Y2, Y2
	VPADDD Y2, Y0, Y0
	ADDQ $16, SI
	ADDQ $32, DI
	SUBQ $16, CX

i8reduce:
	VPADDD Y1, Y0, Y0
	VEXTRACTI128 $1, Y0, X1
	VPADDD X1, X0, X0
	VPSHUFD $0x4E, X0, X1
	VPADDD X1, X0, X0
	VPSHUFD $0xB1, X0, X1
	VPADDD X1, X0, X0
	VMOVD X0, AX

i8ones:
	CMPQ CX, $0
	JE   i8done
	MOVBQSX (SI), BX
	MOVWQSX (DI), DX
	IMULQ DX, BX
	ADDL BX, AX
	INCQ SI
	ADDQ $2, DI
	DECQ CX
	JMP  i8ones

i8done:
	VZEROUPPER
	MOVL AX, ret+48(FP)
	RET
