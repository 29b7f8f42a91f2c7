package main

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/rs/zerolog"

	"github.com/kcmlab/kcm/testenv"
)

func main() {
	ctx := context.Background()
	t0 := time.Now()
	for _, w := range os.Args[1:] {
		switch w {
		case "kwok":
			k, err := testenv.EnsureKwok(ctx, os.Stderr, zerolog.Nop())
			fmt.Println("kwok", k, err, time.Since(t0))
		case "sched":
			k, err := testenv.EnsureScheduler(ctx, os.Stderr, zerolog.Nop())
			fmt.Println("sched", k, err, time.Since(t0))
		case "bins":
			k, err := testenv.EnsureBinaries(ctx, os.Stderr, zerolog.Nop())
			fmt.Println("bins", k, err, time.Since(t0))
		}
	}
}
