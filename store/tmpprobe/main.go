package main

import (
	"context"
	"fmt"
	"os"
	"runtime/pprof"
	"sort"
	"time"

	"rhizome/store"
)

func main() {
	ctx := context.Background()
	s, err := store.Open(os.Args[1])
	if err != nil {
		panic(err)
	}
	defer s.Close()
	if len(os.Args) > 2 && os.Args[2] == "refresh" {
		rep, err := s.RefreshSearchIndex(ctx)
		fmt.Printf("%+v %v\n", rep, err)
	}
	if len(os.Args) > 3 {
		f, _ := os.Create(os.Args[3])
		pprof.StartCPUProfile(f)
		for i := 0; i < 30; i++ {
			s.Search(ctx, os.Args[4], 30)
		}
		pprof.StopCPUProfile()
		return
	}
	for _, q := range []string{"agent", "the", "packages", "to", "harmonious", "poem", "tmux", "\"custom tool\"", "\"the agent\"", "read the file", "agent poem", "the theme selector", "compaction hooks", "compaction summ", "th", "xyzzy"} {
		var ds []time.Duration
		var n int
		var top float64
		for i := 0; i < 11; i++ {
			t := time.Now()
			hits, err := s.Search(ctx, q, 30)
			if err != nil {
				panic(err)
			}
			ds = append(ds, time.Since(t))
			n = len(hits)
			if n > 0 {
				top = hits[0].Score
			}
		}
		sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
		fmt.Printf("%-22s p50 %6.2f ms  max %6.2f ms  hits %d top %.3f\n", q, float64(ds[5].Microseconds())/1000, float64(ds[10].Microseconds())/1000, n, top)
	}
}
