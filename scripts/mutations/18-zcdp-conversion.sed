# file: userdp/plan.go
# bug (caught before): zCDP conversion μ = √(4ρ) instead of √(2ρ)
s|p.mu = math.Sqrt(2 \* rho)|p.mu = math.Sqrt(4 * rho)|
