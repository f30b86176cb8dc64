# file: userdp/steps.go
# bug: off-diagonal Gram entries released without noise
s|\t\t\tg\[a\*r+b\] = p.noise.gram.add(g\[a\*r+b\], rg)|\t\t\tif a == b {\n\t\t\t\tg[a*r+b] = p.noise.gram.add(g[a*r+b], rg)\n\t\t\t}|
