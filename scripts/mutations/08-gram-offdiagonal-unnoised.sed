# file: userdp/steps.go
# bug: off-diagonal Gram entries released without noise
s|^\t\t\tx, err := noisy(p.noise.gram, g\[a\*r+b\], p.grids.gram, rg)$|&\n\t\t\tif a != b {\n\t\t\t\tx, err = sumFloat(g[a*r+b], p.grids.gram)\n\t\t\t}|
