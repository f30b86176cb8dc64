# file: userdp/train.go
# bug: the start's weights (over the StartItems most popular head items) not normalized per user
s|st.add(t, res, sv, salpha, t.factorScale(sv.ccol, salpha))|st.add(t, res, sv, salpha, 1)|
