// Package noise defines what every noise-adding mechanism in dpmc has in
// common: the Mechanism interface, the Sensitivity of the statistic it
// protects, and the Guarantee it gives for one release. The mechanisms
// themselves live in the packages below it.
//
// # The mechanisms
//
// The paper's floating-point mechanisms (for seeded experiments and for
// reproducing the paper; not hardened against floating-point attacks):
//
//   - noise/laplace: the Laplace mechanism, pure ε-DP for ℓ1 sensitivity.
//   - noise/gaussian: the Gaussian mechanism, (ε, δ)-DP for ℓ2 sensitivity.
//   - noise/huber: the paper's Huber mechanism, (ε, δ)-DP.
//
// Their noise is drawn with floating-point samplers. The set of float64
// values such a sampler can return depends on the value it is added to, so
// a released number can reveal the data it was added to (the lattice attack
// of Mironov, 2012).
//
// The exact mechanisms (what every unseeded private run draws):
//
//   - noise/discrete: discrete Laplace, discrete Gaussian and discrete
//     Huber on a power-of-two grid γℤ, sampled with integer arithmetic
//     only. They implement Granular; AddNoise rounds each value to the grid
//     before adding their noise, and the sensitivity they are accounted at
//     includes that rounding (discrete.RoundedSensitivity).
//
// # Using a mechanism
//
// Each mechanism is a small struct built by its package's New, which checks
// its arguments once so that sampling never has to. A Mechanism adds i.i.d.
// noise to every coordinate of a vector f(D):
//
//	m, err := huber.New(3, 1) // α = 3, scale s = 1
//	...
//	noise.AddNoise(m, stats, r) // stats[i] += noise
//	g, err := m.Guarantee(noise.Sensitivity{L1: 5}, 0)
//
// A Guarantee covers exactly one release of one vector. Composition over
// many releases (iterations of a solver) is the job of an accountant
// (package accounting), not of this package.
//
// Randomness is always injected: every sampler takes a *rand.Rand from
// math/rand/v2. Package rng builds the seeded (reproducible, for
// experiments only) and the crypto/rand-backed (for private releases) ones.
package noise
