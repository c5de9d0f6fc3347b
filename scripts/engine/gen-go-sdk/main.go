// Command gen-go-sdk writes the Go SDK of a Pulumi package schema with Pulumi's own Go code
// generator (pkg/v3/codegen/go, the code `pulumi package gen-sdk --language go` runs inside the Go
// language plugin). The plugin is not built here, so `gen-sdk` cannot reach it; this calls the
// generator directly, from the same pkg/v3 version the CLI is built from.
//
// Usage: gen-go-sdk <schema.json> <outdir>
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/blang/semver"
	gogen "github.com/pulumi/pulumi/pkg/v3/codegen/go"
	"github.com/pulumi/pulumi/pkg/v3/codegen/schema"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: gen-go-sdk <schema.json> <outdir>")
		os.Exit(2)
	}
	if err := run(os.Args[1], os.Args[2]); err != nil {
		fmt.Fprintln(os.Stderr, "gen-go-sdk:", err)
		os.Exit(1)
	}
}

func run(schemaPath, outDir string) error {
	data, err := os.ReadFile(schemaPath)
	if err != nil {
		return err
	}
	var spec schema.PackageSpec
	if err := json.Unmarshal(data, &spec); err != nil {
		return fmt.Errorf("%s: %w", schemaPath, err)
	}
	pkg, diags, err := schema.BindSpec(spec, noPackages{}, schema.ValidationOptions{})
	if err != nil {
		return err
	}
	if diags.HasErrors() {
		return diags
	}
	files, err := gogen.GeneratePackage("gateway-keys gen-go-sdk", pkg, nil)
	if err != nil {
		return err
	}
	for name, content := range files {
		path := filepath.Join(outDir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(path, content, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// noPackages loads no package: the gatewaykeys schema references none (and no plugin is started).
type noPackages struct{}

func (noPackages) LoadPackage(name string, _ *semver.Version) (*schema.Package, error) {
	return nil, fmt.Errorf("package %s: the schema may reference no other package", name)
}

func (noPackages) LoadPackageV2(_ context.Context, d *schema.PackageDescriptor) (*schema.Package, error) {
	return nil, fmt.Errorf("package %s: the schema may reference no other package", d.Name)
}

func (noPackages) LoadPackageReference(name string, _ *semver.Version) (schema.PackageReference, error) {
	return nil, fmt.Errorf("package %s: the schema may reference no other package", name)
}

func (noPackages) LoadPackageReferenceV2(_ context.Context, d *schema.PackageDescriptor) (schema.PackageReference, error) {
	return nil, fmt.Errorf("package %s: the schema may reference no other package", d.Name)
}
