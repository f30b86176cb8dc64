// Package ziggurat draws standard normal values by the ziggurat method of
// Marsaglia and Tsang ("The ziggurat method for generating random
// variables", J. Stat. Software 5(8), 2000): 128 horizontal layers of equal
// area v under exp(−x²/2), the base layer a rectangle of width r ≈ 3.44
// plus the normal tail beyond r. A draw picks a layer and a signed
// position in it from one 64-bit word and returns position·width unless
// the point falls outside the curve, which happens for under 2 % of draws.
//
// math/rand/v2's NormFloat64 works the same way with float32 tables and a
// word of its own per draw. This package's tables are float64, with r
// found to float64 precision so that the top layer has area v too (the
// published 13-digit constants leave it 1.2e-9 off), and [Normal] takes
// its first word from the caller, using only its low 39 bits, so that a
// sampler can spend the other 25 on a decision of its own (package huber
// picks the Huber density's tail or body with them).
//
// The audit package models the lattice of values j·[Width](i) that the
// draws lie on; [Normal]'s arithmetic is part of that contract.
package ziggurat
