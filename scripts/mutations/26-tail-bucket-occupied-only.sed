# file: userdp/train.go
# bug: only the occupied tail buckets are released (which buckets hold an unreleased item is revealed)
s|		if err := t.parallel(ctx, nb, func(w, k int) {|&\n			if bw[k] == (Sum{}) {\n				return\n			}|
