# file: userdp/tail.go
# bug: a tail bucket's sum released without noise
s|if noisyS, err = noisy(p.noise.biases, sum, g, r); err != nil {|if noisyS, err = sumFloat(sum, g); err != nil {|
