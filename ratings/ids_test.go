package ratings

// list returns the IDs of x in index order.
func (x *IDs) list() []string {
	s := make([]string, x.Len())
	for i := range s {
		s[i] = x.ID(i)
	}
	return s
}
