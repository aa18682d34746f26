// pool.go: InOrder, the worker pool whose results come out in input order.

package pool

import (
	"context"
	"errors"
	"io"
	"sync"
)

// InOrder reads items with next (i counts from 0) on one goroutine, has
// work done on each by the given number of workers, and passes each result
// to emit on the calling goroutine, in the order of the items, as soon as
// it and every item before it are done. At most 2×workers items wait
// between next and emit, besides the one being read and the one being
// emitted, so memory is bounded by the items, not the input.
//
// Reading stops at io.EOF from next (a clean end), at any other error from
// next (returned as err), when emit returns an error, or when ctx ends
// (interrupted). Items already read are still worked on and emitted, so a
// report in progress can always be closed whole.
func InOrder[T, R any](ctx context.Context, workers int, next func(i int) (T, error), work func(T) R, emit func(R) error) (interrupted bool, err error) {
	type slot struct {
		item T
		done chan R // buffered: a worker never waits on emit
	}
	readCtx, stop := context.WithCancel(ctx)
	defer stop()
	order := make(chan *slot, 2*workers)
	todo := make(chan *slot)
	go func() {
		defer close(todo)
		defer close(order)
		for i := 0; ; i++ {
			if readCtx.Err() != nil {
				interrupted = ctx.Err() != nil
				return
			}
			item, nerr := next(i)
			if errors.Is(nerr, io.EOF) {
				return
			}
			if nerr != nil {
				err = nerr
				return
			}
			s := &slot{item: item, done: make(chan R, 1)}
			order <- s
			todo <- s
		}
	}()
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for s := range todo {
				s.done <- work(s.item)
			}
		})
	}
	for s := range order {
		if emit(<-s.done) != nil {
			stop()
		}
	}
	wg.Wait()
	return interrupted, err
}
