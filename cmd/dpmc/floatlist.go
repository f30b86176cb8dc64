package main

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// parseFloatList parses a comma-separated list of finite numbers such as
// "1,2,3.5" (spaces around items allowed). It returns an error naming the
// item and its position for an empty item, a non-number, NaN or ±Inf.
func parseFloatList(s string) ([]float64, error) {
	if strings.TrimSpace(s) == "" {
		return nil, fmt.Errorf("empty list")
	}
	parts := strings.Split(s, ",")
	out := make([]float64, 0, len(parts))
	for i, p := range parts {
		p = strings.TrimSpace(p)
		if p == "" {
			return nil, fmt.Errorf("item %d is empty", i+1)
		}
		v, err := strconv.ParseFloat(p, 64)
		if err != nil {
			return nil, fmt.Errorf("item %d (%q) is not a number", i+1, p)
		}
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("item %d (%q) is not finite", i+1, p)
		}
		out = append(out, v)
	}
	return out, nil
}

// floatList is a pflag.Value holding a list of numbers.
type floatList struct {
	vals []float64
}

func (f *floatList) String() string {
	s := make([]string, len(f.vals))
	for i, v := range f.vals {
		s[i] = strconv.FormatFloat(v, 'g', -1, 64)
	}
	return strings.Join(s, ",")
}

func (f *floatList) Set(s string) error {
	v, err := parseFloatList(s)
	if err != nil {
		return err
	}
	f.vals = v
	return nil
}

func (f *floatList) Type() string { return "floats" }
