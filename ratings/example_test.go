package ratings_test

import (
	"fmt"
	"log"
	"strings"

	"github.com/dpmc/dpmc/ratings"
)

func ExampleRead() {
	const tsv = "user\titem\trating\n" +
		"alice\tdune\t5\n" +
		"bob\tdune\t3\n" +
		"alice\temma\t4\n"
	d, err := ratings.Read(strings.NewReader(tsv), "tiny.tsv", ratings.Options{})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("format %s (%s), header on line %d\n", d.Format, d.FormatReason, d.Stats.Header)
	fmt.Printf("%d users × %d items, %d ratings in [%g, %g]\n",
		d.Ratings.Rows(), d.Ratings.Cols(), d.Ratings.Len(), d.Min, d.Max)

	items, values := d.Ratings.Row(0) // alice
	for p, j := range items {
		fmt.Printf("%s rated %s: %g\n", d.Users.ID(0), d.Items.ID(int(j)), values.At(p))
	}
	users, _ := d.Ratings.Col(0) // dune
	fmt.Println("dune rated by", len(users), "users")
	// Output:
	// format tsv (tab-separated line 1), header on line 1
	// 2 users × 2 items, 3 ratings in [1, 5]
	// alice rated dune: 5
	// alice rated emma: 4
	// dune rated by 2 users
}

func ExampleParseError() {
	const data = "1\t10\t4\t874965758\n1\t20\t7\t874965759\n"
	_, err := ratings.Read(strings.NewReader(data), "u1.base", ratings.Options{})
	fmt.Println(err)
	// Output:
	// ratings: u1.base:2: rating out of range: rating 7 outside [1, 5]
}

func ExampleLoadPair() {
	train, test, err := ratings.LoadPair("testdata/ml100k/u1.base", "testdata/ml100k/u1.test", ratings.Options{})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("format auto: chose %s (%s)\n", train.Format, train.FormatReason)
	fmt.Printf("train: %d ratings; test: %d ratings, same %d × %d shape\n",
		train.Ratings.Len(), test.Ratings.Len(), test.Ratings.Rows(), test.Ratings.Cols())
	fmt.Printf("test lines dropped: %d (%d unknown users, %d unknown items)\n",
		test.Stats.Cold, test.Stats.ColdUsers, test.Stats.ColdItems)
	// Output:
	// format auto: chose ml100k (file name u1.base)
	// train: 4 ratings; test: 2 ratings, same 3 × 3 shape
	// test lines dropped: 3 (1 unknown users, 1 unknown items)
}

// A --rating-range flag: ParseRange reads it, and Options.Min and Max
// override the format's own range (Format.DefaultRange), here MovieLens
// 10M's half stars from 0.5 in a ratings.dat file.
func ExampleParseRange() {
	lo, hi, err := ratings.ParseRange("0.5,5")
	if err != nil {
		log.Fatal(err)
	}
	dlo, dhi := ratings.FormatMLDat.DefaultRange()
	fmt.Printf("mldat declares [%g, %g]; flag gives [%g, %g]\n", dlo, dhi, lo, hi)

	const dat = "1::122::5::838985046\n1::185::0.5::838983525\n"
	d, err := ratings.Read(strings.NewReader(dat), "ratings.dat", ratings.Options{Min: lo, Max: hi})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%d ratings in [%g, %g]\n", d.Ratings.Len(), d.Min, d.Max)

	_, _, err = ratings.ParseRange("5,1")
	fmt.Println(err)
	// Output:
	// mldat declares [1, 5]; flag gives [0.5, 5]
	// 2 ratings in [0.5, 5]
	// ratings: rating range "5,1": minimum 5 is not below maximum 1
}

// A Builder takes ratings already in row-major order, as a generator
// walking its cells produces them, without a []Triple. A rating out of
// that order is an error, after which the Builder refuses every call.
func ExampleBuilder() {
	b, err := ratings.NewBuilder(2, 3, 4)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, r := range []struct {
		user, item int
		value      float64
	}{{0, 0, 4}, {0, 2, 3.5}, {1, 1, 5}, {1, 2, 1}} {
		if err := b.Add(r.user, r.item, r.value); err != nil {
			fmt.Println(err)
			return
		}
	}
	m := b.Matrix()
	users, values := m.Col(2)
	for p, i := range users {
		fmt.Printf("user %d rated item 2: %g\n", i, values.At(p))
	}
	fmt.Println(m.Len(), "ratings,", m.Bytes(), "bytes")
	// Output:
	// user 0 rated item 2: 3.5
	// user 1 rated item 2: 1
	// 4 ratings, 92 bytes
}
