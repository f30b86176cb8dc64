# file: noise/discrete/gaussian.go
# bug (caught before): discrete Gaussian reports twice the σ it draws
s|func (m \*Gaussian) Sigma() float64 { return math.Sqrt(float64(m.s)) \* m.gamma }|func (m *Gaussian) Sigma() float64 { return 2 * math.Sqrt(float64(m.s)) * m.gamma }|
