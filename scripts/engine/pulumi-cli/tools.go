//go:build tools

// Package tools pins the Pulumi CLI's modules so `go mod tidy` keeps them in go.mod.
package tools

import _ "github.com/pulumi/pulumi/pkg/v3/cmd/pulumi"
