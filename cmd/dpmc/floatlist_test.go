package main

import (
	"math"
	"reflect"
	"strings"
	"testing"
)

func TestParseFloatList(t *testing.T) {
	tests := []struct {
		in      string
		want    []float64
		wantErr string
	}{
		{"1,2,3,4", []float64{1, 2, 3, 4}, ""},
		{" 0.5 , 2e1", []float64{0.5, 20}, ""},
		{"7", []float64{7}, ""},
		{"", nil, "empty list"},
		{"  ", nil, "empty list"},
		{"1,", nil, "item 2 is empty"},
		{"a", nil, `item 1 ("a")`},
		{"1,inf", nil, "not finite"},
		{"nan", nil, "not finite"},
		{"1e999", nil, "not a number"},
	}
	for _, tt := range tests {
		got, err := parseFloatList(tt.in)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("parseFloatList(%q) error = %v, want %q", tt.in, err, tt.wantErr)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("parseFloatList(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
		}
	}
}

// FuzzParseFloatList: never panics; a success is a non-empty list of finite
// numbers with one item per comma-separated field.
func FuzzParseFloatList(f *testing.F) {
	for _, s := range []string{"1,2,3,4", " 0.5 , 2e1", "", ",", "1,,2", "NaN", "-Inf", "0x1p-3", "1_000"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := parseFloatList(s)
		if err != nil {
			return
		}
		if len(got) == 0 || len(got) != strings.Count(s, ",")+1 {
			t.Fatalf("parseFloatList(%q) = %v: wrong length", s, got)
		}
		for _, v := range got {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				t.Fatalf("parseFloatList(%q) returned %v", s, v)
			}
		}
	})
}
