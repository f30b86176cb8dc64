package solver

import "io/fs"

var fsNotExist = fs.ErrNotExist
