package ratings

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
)

// readConfig says how read parses the formats without quoting (ml100k,
// mldat, mlcsv, tsv): line by line (workers 0) or in chunks of blockSize
// bytes parsed by workers goroutines. Either way the result, and the
// error for bad input, are the same; tests compare them.
type readConfig struct {
	workers, blockSize int
	// parsers, if not nil, counts the parsing goroutines running: each
	// adds 1 when it starts and subtracts it as its last act before it
	// is done (for tests: 0 once read has returned).
	parsers *goroutines
	// sink, if not nil, makes read a Scan: see loader. A Scan reads line
	// by line (workers 0). ctx, if not nil, is looked at every
	// cancelEvery records, or every chunk.
	sink func(Record) error
	ctx  context.Context
}

// goroutines counts goroutines that started and that are running.
type goroutines struct{ started, running atomic.Int64 }

// defaultBlockSize is the size of the chunks that the parallel parser
// reads: large enough that handing a chunk to a goroutine costs little
// against parsing it (some 10 000 lines of MovieLens, a millisecond),
// small enough that the chunks in flight take a few MiB.
const defaultBlockSize = 256 << 10

// maxWorkers bounds the goroutines that parse chunks: the merge of their
// results in file order, on the reading goroutine, does not keep up with
// many more.
const maxWorkers = 4

// defaultConfig parses in chunks on up to maxWorkers goroutines if the
// process may run goroutines in parallel (GOMAXPROCS > 1), else line by
// line.
func defaultConfig() readConfig {
	n := min(runtime.GOMAXPROCS(0), maxWorkers)
	if n < 2 {
		return readConfig{}
	}
	return readConfig{workers: n, blockSize: defaultBlockSize}
}

// chunk is a run of whole lines of the input and, once parsed, what it
// holds. Only the goroutine that parses it writes to it until done is
// closed; then only the reading goroutine, which merges it.
type chunk struct {
	data  []byte // the lines, each ending in '\n' but the input's last
	line0 int    // the line number of the first line

	recs   []chunkRecord
	spans  []span // the IDs that are not canonical decimals, as parts of data
	lines  int    // lines in data
	header int    // the line number of a header line skipped, or 0
	// records and zeros count the rating lines, and those of them dropped
	// for a rating 0.
	records, zeros int
	err            error // the first bad line's error: recs hold the ratings before it
	done           chan struct{}
}

// chunkRecord is a rating line of a chunk: its user and item as keys (see
// idKey), its line number and its rating.
type chunkRecord struct {
	user, item uint32
	line       int32
	v          float64
}

// span is a part [off, off+n) of a chunk's data.
type span struct{ off, n int32 }

// keySpan marks a key that indexes a chunk's spans rather than holding a
// number.
const keySpan = 1 << 31

// idKey returns the key of an ID, part of c.data: its value if it is a
// canonical decimal (at most 9 digits, so below keySpan), else keySpan +
// the index of its span, which it appends.
func (c *chunk) idKey(id []byte) uint32 {
	if n, ok := number(id); ok {
		return uint32(n)
	}
	off := cap(c.data) - cap(id) // id is a part of c.data, so this is its offset
	c.spans = append(c.spans, span{off: int32(off), n: int32(len(id))})
	return keySpan + uint32(len(c.spans)-1)
}

// parse parses the lines of c by the rules r and layout lf. first is as
// for parseLine: only a chunk that may hold the first non-blank line
// passes it. It stops at the first bad line.
func (c *chunk) parse(r *recordRules, lf *lineFormat, first *bool) {
	data := c.data
	line := c.line0
	if cap(c.recs) == 0 {
		c.recs = make([]chunkRecord, 0, len(data)/16+1) // a MovieLens line has 16 bytes or more
	}
	var fields [][]byte
	notFirst := false
	if first == nil {
		first = &notFirst
	}
	for len(data) > 0 {
		var b []byte
		if k := bytes.IndexByte(data, '\n'); k >= 0 {
			b, data = data[:k], data[k+1:]
		} else {
			b, data = data, nil
		}
		if n := len(b); n > 0 && b[n-1] == '\r' {
			b = b[:n-1] // as bufio.ScanLines does
		}
		c.lines++
		kind, user, item, v, err := r.parseLine(b, line, lf, first, &fields)
		switch kind {
		case headerLine:
			c.header = line
		case ratingLine, zeroLine:
			c.records++
		}
		if err != nil {
			c.err = err
			return
		}
		switch kind {
		case ratingLine:
			// line ≤ MaxInt32: checkRecord rejects the lines beyond.
			c.recs = append(c.recs, chunkRecord{user: c.idKey(user), item: c.idKey(item), line: int32(line), v: v})
		case zeroLine:
			c.zeros++
		}
		line++
	}
}

// readChunks reads the lines of g as readLines does, in chunks of about
// l.blockSize bytes that l.workers goroutines parse while this one reads
// on and merges the parsed chunks in file order: the records, the IDs'
// order of first appearance, the counts and the first error are those of
// a read line by line. At most 2·workers + 1 chunks are in flight, so the
// memory it needs beyond the records is bounded. It waits for its
// goroutines before it returns.
func (l *loader) readChunks(g io.Reader, lf *lineFormat) (err error) {
	jobs := make(chan *chunk)
	var wg sync.WaitGroup
	started := false
	defer func() {
		if started {
			close(jobs)
			wg.Wait()
		}
	}()
	var (
		pending []*chunk // parsing, in file order
		free    []*chunk // merged, their buffers to reuse
		carry   []byte   // the start of a line that the last chunk cut off
		first   = true   // no non-blank line yet: parse here, in order
		line    = 1
		eof     bool
		empties int // reads in a row that returned nothing and no error
	)
	merge := func(c *chunk) error {
		<-c.done
		err := l.mergeChunk(c)
		free = append(free, c)
		return err
	}
	for !eof {
		var c *chunk
		if n := len(free); n > 0 {
			c, free = free[n-1], free[:n-1]
			*c = chunk{data: c.data[:0], recs: c.recs[:0], spans: c.spans[:0]}
		} else {
			c = &chunk{}
		}
		c.line0, c.done = line, make(chan struct{})
		buf := c.data[:cap(c.data)]
		if len(buf) < max(l.blockSize, 2*len(carry)) {
			buf = make([]byte, max(l.blockSize, 2*len(carry)))
		}
		n := copy(buf, carry)
		carry = carry[:0]
		for {
			for n < len(buf) && !eof {
				k, rerr := g.Read(buf[n:])
				n += k
				switch {
				case rerr != nil:
					eof = true // io.EOF, or an error that blame reports
				case k == 0:
					if empties++; empties >= 100 {
						eof = true
						err = io.ErrNoProgress // as bufio.Scanner, reported unless a line before is bad
					}
				default:
					empties = 0
				}
			}
			if eof {
				c.data = buf[:n]
				break
			}
			if cut := bytes.LastIndexByte(buf[:n], '\n'); cut >= 0 {
				c.data = buf[:cut+1]
				carry = append(carry, buf[cut+1:n]...)
				break
			}
			// A line longer than the buffer (the guard stops it at
			// MaxLineBytes): read on into a larger one.
			buf = append(buf[:n], make([]byte, len(buf))...)
			buf = buf[:cap(buf)]
		}
		line += bytes.Count(c.data, []byte{'\n'})
		if first {
			c.parse(&l.recordRules, lf, &first)
			close(c.done)
			if merr := merge(c); merr != nil {
				return merr
			}
			continue
		}
		if !started {
			started = true
			for range l.workers {
				wg.Add(1)
				go func() {
					defer wg.Done()
					if g := l.parsers; g != nil {
						g.started.Add(1)
						g.running.Add(1)
						defer g.running.Add(-1) // before wg.Done
					}
					for c := range jobs {
						c.parse(&l.recordRules, lf, nil)
						close(c.done)
					}
				}()
			}
		}
		jobs <- c
		pending = append(pending, c)
		if len(pending) > 2*l.workers {
			if merr := merge(pending[0]); merr != nil {
				return merr
			}
			pending = pending[1:]
		}
	}
	for _, c := range pending {
		if merr := merge(c); merr != nil {
			return merr
		}
	}
	if err != nil {
		return fmt.Errorf("ratings: reading %s: %w", l.file, err)
	}
	return nil
}

// mergeChunk adds a parsed chunk's counts and records to l, in order, and
// returns its error.
func (l *loader) mergeChunk(c *chunk) error {
	if l.ctx != nil {
		if err := l.ctx.Err(); err != nil {
			return fmt.Errorf("ratings: %s:%d: %w", l.file, c.line0, err)
		}
	}
	st := &l.stats
	st.Lines += c.lines
	st.Records += c.records
	st.Zeros += c.zeros
	if c.header > 0 {
		st.Header = c.header
	}
	var buf []byte
	for _, rec := range c.recs {
		u, uok := l.findKey(&l.userCache, l.userFind, c, rec.user, &buf)
		i, iok := l.findKey(&l.itemCache, l.itemFind, c, rec.item, &buf)
		if l.fixed {
			if !uok || !iok {
				st.Cold++
				if !uok {
					l.coldUsers[string(keyBytes(c, rec.user, &buf))] = struct{}{}
				}
				if !iok {
					l.coldItems[string(keyBytes(c, rec.item, &buf))] = struct{}{}
				}
				continue
			}
		} else {
			var err error
			if !uok {
				if u, err = addID(l.users, keyBytes(c, rec.user, &buf)); err != nil {
					return l.errAt(int(rec.line), fmt.Errorf("user ID: %w", err))
				}
				if rec.user < keySpan {
					cachePutNumber(&l.userCache, int(rec.user), u)
				}
			}
			if !iok {
				if i, err = addID(l.items, keyBytes(c, rec.item, &buf)); err != nil {
					return l.errAt(int(rec.line), fmt.Errorf("item ID: %w", err))
				}
				if rec.item < keySpan {
					cachePutNumber(&l.itemCache, int(rec.item), i)
				}
			}
		}
		l.appendRecord(int(rec.line), u, i, rec.v)
	}
	return c.err
}

// keyBytes returns the ID of key in chunk c, formatting a number into
// *buf.
func keyBytes(c *chunk, key uint32, buf *[]byte) []byte {
	if key >= keySpan {
		s := c.spans[key-keySpan]
		return c.data[s.off : s.off+s.n]
	}
	*buf = strconv.AppendUint((*buf)[:0], uint64(key), 10)
	return *buf
}

// findKey is cacheFind for the ID of key in chunk c.
func (l *loader) findKey(cache *numCache, x *IDs, c *chunk, key uint32, buf *[]byte) (int32, bool) {
	if key < keySpan && int(key) < len(cache.idx) {
		if k := cache.idx[key]; k > 0 {
			return k - 1, true
		}
	}
	return cacheFind(cache, x, keyBytes(c, key, buf))
}

// cachePutNumber records in c that the ID of value n has index i.
func cachePutNumber(c *numCache, n int, i int32) {
	c.grow(n, int(i)+1)
	if n < len(c.idx) {
		c.idx[n] = i + 1
	}
}
