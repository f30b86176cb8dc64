# file: userdp/train.go
# bug: only the occupied tail buckets are released (which buckets hold an unreleased item is revealed)
s|		for k := range nb {|		for k := range nb {\n			if bw[k] == (Sum{}) {\n				continue\n			}|
