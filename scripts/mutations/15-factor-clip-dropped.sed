# file: userdp/steps.go
# bug (caught before): the clip of the user factors dropped
/\tclipNorm(uc, p.opts.ClipNorm)/d
