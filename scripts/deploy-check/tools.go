//go:build tools

// Package tools pins Helm's CLI so `go mod tidy` keeps its modules in go.mod (scripts/setup builds
// it from here, like the Pulumi engine in scripts/engine).
package tools

import _ "helm.sh/helm/v3/cmd/helm"
