// Command compose-config loads Compose files the way `docker compose config` does, with
// compose-go (the library Docker Compose is built on): the Compose Specification's schema checked,
// variables interpolated from the environment (and a .env file beside the first file), paths
// resolved. It prints the resulting project as JSON, or exits 1 with the loader's error.
//
//	compose-config deploy/compose.yaml [more files…]
package main

import (
	"context"
	"fmt"
	"os"

	"github.com/compose-spec/compose-go/v2/cli"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: compose-config FILE [FILE…]")
		os.Exit(2)
	}
	options, err := cli.NewProjectOptions(os.Args[1:], cli.WithOsEnv, cli.WithDotEnv, cli.WithResolvedPaths(true))
	if err != nil {
		fail(err)
	}
	project, err := options.LoadProject(context.Background())
	if err != nil {
		fail(err)
	}
	data, err := project.MarshalJSON()
	if err != nil {
		fail(err)
	}
	os.Stdout.Write(append(data, '\n'))
}

func fail(err error) {
	fmt.Fprintf(os.Stderr, "compose-config: %v\n", err)
	os.Exit(1)
}
