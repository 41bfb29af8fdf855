// Command prog exercises the parts of Go's runtime a profiled Go program
// leans on: goroutines on several threads, channels, sync.WaitGroup, a
// mutex, a forced garbage collection, a map, strconv, a nil-pointer panic
// recovered, and time.Sleep. Its output is the same on every run and
// every machine: icount's tests compare it with the native run's.
package main

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

// collatz returns the number of steps n takes to reach 1.
func collatz(n uint64) int {
	steps := 0
	for n != 1 {
		if n%2 == 0 {
			n /= 2
		} else {
			n = 3*n + 1
		}
		steps++
	}
	return steps
}

// workers sums Collatz steps over [1, limit) split among n goroutines,
// each sending its partial sum on a channel.
func workers(n int, limit uint64) (int, []int) {
	type part struct{ id, sum int }
	ch := make(chan part)
	for w := 0; w < n; w++ {
		go func(id int) {
			sum := 0
			for i := uint64(1 + id); i < limit; i += uint64(n) {
				sum += collatz(i)
			}
			ch <- part{id, sum}
		}(w)
	}
	parts := make([]int, n)
	total := 0
	for w := 0; w < n; w++ {
		p := <-ch
		parts[p.id] = p.sum
		total += p.sum
	}
	return total, parts
}

// counter adds under a mutex from many goroutines.
func counter(goroutines, each int) int {
	var (
		mu sync.Mutex
		wg sync.WaitGroup
		n  int
	)
	for g := 0; g < goroutines; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < each; i++ {
				mu.Lock()
				n++
				mu.Unlock()
				if i%100 == 0 {
					runtime.Gosched()
				}
			}
		}()
	}
	wg.Wait()
	return n
}

// pipeline passes numbers through three stages of unbuffered channels.
func pipeline(n int) int {
	src := make(chan int)
	sq := make(chan int)
	out := make(chan int)
	go func() {
		for i := 1; i <= n; i++ {
			src <- i
		}
		close(src)
	}()
	go func() {
		for v := range src {
			sq <- v * v
		}
		close(sq)
	}()
	go func() {
		s := 0
		for v := range sq {
			s += v
		}
		out <- s
	}()
	return <-out
}

// words counts the words of a text in a map and formats them with strconv.
func words() string {
	text := strings.Repeat("the quick brown fox jumps over the lazy dog and the cat ", 40)
	freq := map[string]int{}
	for _, w := range strings.Fields(text) {
		freq[w]++
	}
	keys := make([]string, 0, len(freq))
	for k := range freq {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range keys {
		b.WriteString(k + "=" + strconv.Itoa(freq[k]) + " ")
	}
	return strings.TrimSpace(b.String())
}

// garbage makes garbage, forces a collection and checks what survived.
func garbage() (uint32, int) {
	var keep [][]byte
	for i := 0; i < 2000; i++ {
		b := make([]byte, 1024+i%512)
		b[0] = byte(i)
		if i%10 == 0 {
			keep = append(keep, b)
		}
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	runtime.GC()
	runtime.ReadMemStats(&after)
	sum := 0
	for _, b := range keep {
		sum += int(b[0])
	}
	return after.NumGC - before.NumGC, sum
}

// pipeSum sends n bytes from a goroutine through an operating-system pipe
// (read and written through Go's network poller: epoll and an eventfd)
// and returns how many arrived and their sum.
func pipeSum(n int) (int, int) {
	r, w, err := os.Pipe()
	if err != nil {
		panic(err)
	}
	go func() {
		buf := make([]byte, 4096)
		for sent := 0; sent < n; sent += len(buf) {
			for i := range buf {
				buf[i] = byte(sent + i)
			}
			if _, err := w.Write(buf[:min(len(buf), n-sent)]); err != nil {
				panic(err)
			}
		}
		w.Close()
	}()
	b, err := io.ReadAll(r)
	if err != nil {
		panic(err)
	}
	r.Close()
	sum := 0
	for _, c := range b {
		sum += int(c)
	}
	return len(b), sum
}

type node struct{ val int }

// nilDeref reads through a nil pointer and recovers from the panic.
func nilDeref(p *node) (v int, msg string) {
	defer func() {
		if r := recover(); r != nil {
			msg = fmt.Sprint(r)
			v = -1
		}
	}()
	return p.val, ""
}

func main() {
	total, parts := workers(4, 20000)
	fmt.Println("collatz:", total, parts)
	fmt.Println("counter:", counter(8, 1000))
	fmt.Println("pipeline:", pipeline(1000))
	fmt.Println("words:", words())

	f, err := strconv.ParseFloat("3.14159", 64)
	i, err2 := strconv.ParseInt("-12345", 10, 64)
	_, err3 := strconv.Atoi("12a")
	fmt.Println("strconv:", strconv.FormatFloat(f*2, 'f', 4, 64), i*3, err, err2, err3,
		strconv.Quote("tab\there"), strconv.FormatInt(255, 2))

	n, psum := pipeSum(200000)
	fmt.Println("pipe:", n, "bytes, sum", psum)

	gcs, sum := garbage()
	fmt.Println("gc: at least one collection:", gcs >= 1, "kept sum:", sum)

	v, msg := nilDeref(nil)
	fmt.Println("recovered:", v, msg)

	start := time.Now()
	time.Sleep(20 * time.Millisecond)
	fmt.Println("slept at least 20ms:", time.Since(start) >= 20*time.Millisecond)

	done := make(chan string)
	go func() {
		time.Sleep(5 * time.Millisecond)
		done <- "timer goroutine"
	}()
	select {
	case s := <-done:
		fmt.Println("select:", s)
	case <-time.After(time.Hour):
		fmt.Println("select: timed out")
		os.Exit(1)
	}
	fmt.Println("done")
}
