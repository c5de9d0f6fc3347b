//go:build tools

// Package tools pins the Python language host's module so `go mod tidy` keeps it in go.mod.
package tools

import _ "github.com/pulumi/pulumi/sdk/v3/python/cmd/pulumi-language-python"
