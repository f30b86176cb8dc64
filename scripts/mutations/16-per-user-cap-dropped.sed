# file: userdp/steps.go
# bug (caught before): the per-user cap (MaxItemsPerUser) dropped
s|if p.opts.NoNoise \|\| n <= k {|if true {|
