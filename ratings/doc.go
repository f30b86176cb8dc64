// Package ratings loads users × items rating data — mostly missing — into
// the sparse matrix that dpmc's matrix-completion solvers work on.
//
// A Matrix holds the ratings twice over the same triples, compressed by
// row (Row(i): one user's items and values) and by column (Col(j): one
// item's users and values), so that alternating solvers sweep users and
// items without copying. Indices are int32; a loaded file with at most
// 256 distinct values (stars, half stars, tenths) keeps a one-byte code
// per value and the table of values, 10 bytes per rating for both views;
// one with at most 65 536 (values on a finer grid, such as 4 decimals of a
// 1–5 scale) a two-byte code and a table of float32s, 12 bytes per
// rating; otherwise the values are stored as float32, 16 bytes per
// rating. Every value is the nearest float32 to the rating: exact for
// integers and half stars, else within 6e-8 relative, far below any
// rating scale's step.
// Values reads each storage exactly. New and Build make one from
// Triples, and Build can average repeated (user, item) pairs; a Builder
// takes ratings already in row-major order without a []Triple. The
// loaders stream the file and keep 8 bytes per rating line read (user,
// item and the value's code while there are at most 256 distinct values,
// 12 or 16 bytes otherwise), and build the matrix partly in that memory,
// so that loading a file of one-byte codes peaks at about 13 bytes per
// rating, and one of two-byte codes (at most 65 536 values and 65 536
// items) at about 12.
//
// The formats without quoting (ml100k, mldat, mlcsv, tsv) are parsed in
// chunks of whole lines on up to four goroutines when GOMAXPROCS allows,
// and merged in file order: the IDs' order, the matrix, the counts and the
// first error are those of a read line by line, which tests and a fuzz
// target check. Stdin and pipes are read the same way (no mmap).
//
// Files name users and items by external IDs. An IDs maps them to the
// dense row and column indices, assigned in order of first appearance among
// the kept lines of the file, and back. A Dataset bundles a Matrix with its
// two IDs, the declared rating range [Min, Max] (a public bound that noise
// calibration can rely on: every rating lies in it), the source name, the
// format used and Stats on what was read, kept and dropped.
//
// Scan reads a file record by record, parsed exactly as Read parses it,
// without building a matrix: it is how package model reads files of
// (user, item) pairs to predict and users' histories, which may also lack
// ratings. Load and Read read one file; LoadPair and ReadTest read a test file
// against a training set, sharing its IDs and shape (ratings of users or
// items absent from training are dropped and counted in Stats.Cold); Split
// divides one Dataset at random. The formats, chosen by Options.Format or
// detected by FormatAuto, are
//
//	ml100k   MovieLens 100k u.data, u1.base, u1.test: user TAB item TAB rating TAB timestamp; ratings 1–5, integers
//	mldat    MovieLens 1M/10M ratings.dat: user::item::rating::timestamp; ratings 1–5 in half stars (10M: set Min 0.5)
//	mlcsv    MovieLens ml-latest ratings.csv: header userId,movieId,rating,timestamp; ratings 0.5–5 in half stars
//	sweetrs  SweetRS ratings-final.csv: header "product","user","value"; ratings 1–5,
//	         0 = not rated (dropped), repeated pairs averaged
//	csv, tsv any delimited file: user,item,rating and an optional Unix timestamp, or the columns
//	         Options.Columns names; ratings 1–5
//	pairs    implicit feedback (clicks, plays, purchases): user TAB item or user,item, an optional
//	         header; no ratings: every pair is stored as 1, a repeated pair counts once, and
//	         Dataset.Implicit is set (detected from a first line of exactly two fields)
//
// The known formats have exactly their number of fields. Options.Min and
// Options.Max override any format's rating range (Format.DefaultRange);
// ParseRange reads one from "MIN,MAX".
//
// # Bad input
//
// Bad input gives a *ParseError with the file name and line number, at
// the first bad line; no input makes the loaders panic, hang or store a
// non-finite value. Ratings are decimal numbers ("4", "3.5", "4e0"):
// hexadecimal, "Inf", "NaN", digit separators and decimal commas are
// errors, and so is a csv line "3,3,4,5", whose fourth field is not a
// timestamp. IDs are non-empty UTF-8 of at most MaxIDBytes bytes, without
// a control character (no tab, CR or LF, even quoted in csv). Every
// format reads through one guard that ends a line (a csv record) longer
// than MaxLineBytes and a NUL byte with an error, so an endless line, an
// unclosed quote or a binary file such as /dev/zero costs memory of the
// order of MaxLineBytes, not of its size.
//
// The project does not ship the datasets, whose licences restrict
// redistribution. Download MovieLens from
// https://grouplens.org/datasets/movielens/ (ml-100k.zip holds u.data and
// the u1–u5, ua, ub splits) and SweetRS's ratings-final.csv from
// https://github.com/kidzik/sweetrs-analysis (described in Ł. Kidziński,
// "SweetRS: Dataset for a recommender systems of sweets", arXiv:1709.03496).
package ratings
