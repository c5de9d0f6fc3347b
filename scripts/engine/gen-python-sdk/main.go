// Command gen-python-sdk writes the Python SDK of a Pulumi package schema with Pulumi's own Python
// code generator (pkg/v3/codegen/python of v3.68.0, the release whose Python language host and SDK
// scripts/setup installs). `pulumi package gen-sdk --language python` of the 3.259 CLI cannot reach
// the 3.68 host, and its output needs a newer Python SDK; this calls the generator directly.
//
// Two generated files are rewritten so the package installs and imports offline, with the plugin
// installed beforehand (docs/provider.md):
//   - setup.py: the generator's runs `pulumi plugin install` at install time and requires parver;
//     ours is plain metadata (the schema's name, version and description) requiring `pulumi` only.
//   - <package>/_utilities.py: the generator's derives the plugin version from the installed
//     package's metadata with pkg_resources and parver at import time; ours states the schema's
//     version (the schema sets respectSchemaVersion), which is the plugin the engine is asked for.
//
// Usage: gen-python-sdk <schema.json> <outdir>   (the SDK lands in <outdir>, setup.py at its top)
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/blang/semver"
	pygen "github.com/pulumi/pulumi/pkg/v3/codegen/python"
	"github.com/pulumi/pulumi/pkg/v3/codegen/schema"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: gen-python-sdk <schema.json> <outdir>")
		os.Exit(2)
	}
	if err := run(os.Args[1], os.Args[2]); err != nil {
		fmt.Fprintln(os.Stderr, "gen-python-sdk:", err)
		os.Exit(1)
	}
}

const tool = "gateway-keys gen-python-sdk"

func run(schemaPath, outDir string) error {
	data, err := os.ReadFile(schemaPath)
	if err != nil {
		return err
	}
	var spec schema.PackageSpec
	if err := json.Unmarshal(data, &spec); err != nil {
		return fmt.Errorf("%s: %w", schemaPath, err)
	}
	pkg, diags, err := schema.BindSpec(spec, noPackages{})
	if err != nil {
		return err
	}
	if diags.HasErrors() {
		return diags
	}
	if pkg.Version == nil {
		return fmt.Errorf("%s: the schema's version is required (the plugin version the SDK asks for)", schemaPath)
	}
	files, err := pygen.GeneratePackage(tool, pkg, nil)
	if err != nil {
		return err
	}
	info, _ := pkg.Language["python"].(pygen.PackageInfo)
	if info.PackageName == "" || !info.RespectSchemaVersion {
		return fmt.Errorf("%s: language.python needs packageName and respectSchemaVersion", schemaPath)
	}
	utilities := filepath.Join(info.PackageName, "_utilities.py")
	fixed, err := fixedVersionUtilities(string(files[utilities]), pkg.Version.String())
	if err != nil {
		return fmt.Errorf("%s: %w", utilities, err)
	}
	files[utilities] = []byte(fixed)
	files["setup.py"] = []byte(setupPy(pkg, info))
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

// versionBlockStart and versionBlockEnd delimit the generator's version lookup in _utilities.py.
const (
	versionBlockStart = "def _get_semver_version():"
	versionBlockEnd   = "_version_str = str(_version)\n"
)

// fixedVersionUtilities replaces the version lookup (pkg_resources and parver at import time) with
// the schema's version, and drops the imports only that lookup used. It fails when the generator's
// text is not what it expects, rather than writing a half-edited file.
func fixedVersionUtilities(text, version string) (string, error) {
	for _, line := range []string{"import pkg_resources\n", "from parver import Version as PEP440Version\n", "from semver import VersionInfo as SemverVersion\n"} {
		if strings.Count(text, line) != 1 {
			return "", fmt.Errorf("expected the line %q once", strings.TrimSpace(line))
		}
		text = strings.Replace(text, line, "", 1)
	}
	start := strings.Index(text, versionBlockStart)
	end := strings.Index(text, versionBlockEnd)
	if start < 0 || end < start {
		return "", fmt.Errorf("expected the version lookup %q ... %q", versionBlockStart, strings.TrimSpace(versionBlockEnd))
	}
	stated := fmt.Sprintf("# The plugin version this SDK was generated for (the schema's version, written by %s):\n"+
		"# the engine is asked for exactly this plugin. No package metadata is read at import.\n"+
		"_version_str = %q\n", tool, version)
	text = text[:start] + stated + text[end+len(versionBlockEnd):]
	for _, gone := range []string{"pkg_resources", "PEP440Version", "SemverVersion"} {
		if strings.Contains(text, gone) {
			return "", fmt.Errorf("%s is still used after the version lookup was replaced", gone)
		}
	}
	return text, nil
}

// setupPy is the package's metadata: what the generator writes, minus the install-time plugin
// download and the parver requirement.
func setupPy(pkg *schema.Package, info pygen.PackageInfo) string {
	pythonRequires := info.PythonRequires
	if pythonRequires == "" {
		pythonRequires = ">=3.8"
	}
	pulumiRequires := info.Requires["pulumi"]
	if pulumiRequires == "" {
		pulumiRequires = ">=3.0.0,<4.0.0"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# coding=utf-8\n# *** WARNING: this file was generated by %s. ***\n# *** Do not edit by hand unless you're certain you know what you are doing! ***\n\n", tool)
	b.WriteString("# The resource plugin is installed separately, before this package (see the README):\n")
	b.WriteString("# installing this package downloads nothing.\n")
	b.WriteString("from setuptools import find_packages, setup\n\n")
	fmt.Fprintf(&b, "VERSION = %q\n\n\n", pythonVersion(*pkg.Version))
	b.WriteString("def readme():\n    try:\n        with open('README.md', encoding='utf-8') as f:\n            return f.read()\n")
	fmt.Fprintf(&b, "    except FileNotFoundError:\n        return %q\n\n\n", pkg.Name+" Pulumi Package")
	fmt.Fprintf(&b, "setup(name=%q,\n", info.PackageName)
	fmt.Fprintf(&b, "      python_requires=%q,\n", pythonRequires)
	b.WriteString("      version=VERSION,\n")
	if pkg.Description != "" {
		fmt.Fprintf(&b, "      description=%q,\n", pkg.Description)
	}
	b.WriteString("      long_description=readme(),\n      long_description_content_type='text/markdown',\n")
	if len(pkg.Keywords) > 0 {
		fmt.Fprintf(&b, "      keywords=%q,\n", strings.Join(pkg.Keywords, " "))
	}
	if pkg.License != "" {
		fmt.Fprintf(&b, "      license=%q,\n", pkg.License)
	}
	b.WriteString("      packages=find_packages(),\n")
	fmt.Fprintf(&b, "      package_data={%q: ['py.typed', 'pulumi-plugin.json']},\n", info.PackageName)
	fmt.Fprintf(&b, "      install_requires=[%q],\n", "pulumi"+pulumiRequires)
	b.WriteString("      zip_safe=False)\n")
	return b.String()
}

// pythonVersion is a semver as PEP 440 spells it (the schema's versions have no build metadata).
func pythonVersion(v semver.Version) string {
	s := fmt.Sprintf("%d.%d.%d", v.Major, v.Minor, v.Patch)
	if len(v.Pre) > 0 {
		s += "rc0+" + v.Pre[0].String()
	}
	return s
}

// noPackages loads no package: the gatewaykeys schema references none (and no plugin is started).
type noPackages struct{}

func (noPackages) LoadPackage(name string, _ *semver.Version) (*schema.Package, error) {
	return nil, fmt.Errorf("package %s: the schema may reference no other package", name)
}
