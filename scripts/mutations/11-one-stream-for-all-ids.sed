# file: userdp/plan.go
# bug: one noise stream for every item and user (the stream ignores the ID)
s|, phase, step), id...)|, phase, step))|
