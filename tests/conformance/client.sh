#!/usr/bin/env bash
# The MCP conformance suite's client under test: real `rea-tui` commands, one scenario at a time.
#
# The suite runs `client.sh SERVER_URL` with MCP_CONFORMANCE_SCENARIO set to the scenario name and, for
# scenarios that hand over credentials, MCP_CONFORMANCE_CONTEXT set to a JSON object. Each run gets its
# own user directories (tokens, caches) and the file token store. The "browser" is
# tests/support/headless_signin.py, named through $BROWSER, which rea-tui opens with Python's webbrowser:
# it follows the authorization server's redirect to rea-tui's loopback listener, as a person's browser would.
set -uo pipefail

url="${!#}"
scenario="${MCP_CONFORMANCE_SCENARIO:?MCP_CONFORMANCE_SCENARIO is not set}"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
python="${REA_TUI_PYTHON:-$repo/.venv/bin/python}"
[ -x "$python" ] || python="$(command -v python3)"

work="$(mktemp -d)"; echo "rea-tui conformance work folder: $work" >&2
[ -n "${REA_TUI_KEEP_WORK:-}" ] || trap 'rm -rf "$work"' EXIT
export XDG_CONFIG_HOME="$work/config" XDG_CACHE_HOME="$work/cache" XDG_DATA_HOME="$work/data" XDG_STATE_HOME="$work/state"
export PYTHON_KEYRING_BACKEND=keyring.backends.fail.Keyring
export BROWSER="$python $repo/tests/support/headless_signin.py %s"
cd "$repo"

rea() { "$python" -m rea_tui "$@"; }

# A config entry for the scenario's server, with the OAuth options the scenario calls for.
write_config() {
    MCP_URL="$url" "$python" - "$work/servers.json" "$@" <<'PY'
import json, os, sys
path, *pairs = sys.argv[1:]
oauth = dict(pair.split("=", 1) for pair in pairs)
context = json.loads(os.environ.get("MCP_CONFORMANCE_CONTEXT") or "{}")
for key, field in (("clientId", "client_id"), ("clientSecret", "client_secret")):
    if oauth.get(key) == "@context":
        oauth[key] = context[field]
entry = {"url": os.environ["MCP_URL"], "oauth": oauth} if oauth else {"url": os.environ["MCP_URL"]}
json.dump({"mcpServers": {"conformance": entry}}, open(path, "w"))
PY
}

server=(--config "$work/servers.json" --server conformance)

# A command that may need a sign-in: on exit 8 (authorization needed) sign in once and run it again.
with_sign_in() {
    rea "$@" "${server[@]}"
    code=$?
    if [ "$code" -eq 8 ]; then
        rea auth login "${server[@]}" || return $?
        rea "$@" "${server[@]}"
        code=$?
    fi
    return $code
}

case "$scenario" in
    initialize)
        write_config
        rea servers "${server[@]}" ;;
    tools_call)
        write_config
        rea call add_numbers a=5 b=3 --yes "${server[@]}" ;;
    sse-retry)
        write_config
        rea call test_reconnection --yes "${server[@]}" ;;
    request-metadata | json-schema-ref-no-deref)
        # Every request's _meta and version header (a first refusal is retried at a supported version);
        # a tool schema's network $ref is never fetched.
        write_config
        rea tools "${server[@]}" ;;
    http-standard-headers)
        # Mcp-Method on every POST, Mcp-Name on tools/call, resources/read and prompts/get: one session.
        write_config
        rea run --keep-going "${server[@]}" - <<'RUN'
tools
call test_headers --yes
call my-hyphenated-tool --yes
resources
read 'file:///path/to/file%20name.txt'
prompts
get test_prompt
RUN
        ;;
    http-custom-headers)
        # The calls the suite hands over, each with its arguments. A null argument is left out: rea-tui
        # refuses null for a boolean (the schema's type), and an absent one sends no header either.
        write_config
        code=0
        while IFS= read -r -d '' call; do
            name="${call%%$'\t'*}"; arguments="${call#*$'\t'}"
            rea call "$name" --args "$arguments" --yes "${server[@]}" || code=$?
        done < <("$python" - <<'PY'
import json, os, sys
for call in json.loads(os.environ["MCP_CONFORMANCE_CONTEXT"])["toolCalls"]:
    arguments = {k: v for k, v in call["arguments"].items() if v is not None}
    sys.stdout.write(call["name"] + "\t" + json.dumps(arguments) + "\0")
PY
)
        exit $code ;;
    http-invalid-tool-headers)
        # The valid tool is listed and called; a tool with an invalid x-mcp-header is not listed, and
        # calling it by name is refused before anything is sent (exit 2, the run's last line).
        write_config
        rea run "${server[@]}" - <<'RUN'
tools
call valid_tool region=us-west1 --yes
call invalid_number_header score=1 --yes
RUN
        [ $? -eq 2 ] ;;
    sep-2322-client-request-state)
        # Each tool that asks for input (and one that does not) in its own call, answered with a yes.
        write_config
        rea run "${server[@]}" - <<'RUN'
call test_mrtr_echo_state --elicit confirmed=true --yes
call test_mrtr_no_state --elicit confirmed=true --yes
call test_mrtr_unrelated --yes
call test_mrtr_no_result_type --yes
RUN
        ;;
    json-schema-2020-12-preservation)
        # The focal tool's inputSchema, as listed, sent back verbatim through the echo tool.
        write_config
        listed="$(rea tools --json "${server[@]}")" || exit $?
        schema="$(LISTED="$listed" "$python" -c '
import json, os
tools = json.loads(os.environ["LISTED"])["tools"]
focal = next(t for t in tools if t["name"] == "json_schema_2020_12_tool")
print(json.dumps({"schema": focal["inputSchema"]}))')" || exit $?
        rea call json_schema_echo --args "$schema" --yes "${server[@]}" ;;
    elicitation-sep1034-client-defaults)
        write_config
        rea call test_client_elicitation_defaults --yes --elicit-accept "${server[@]}" ;;
    auth/pre-registration)
        write_config clientId=@context clientSecret=@context
        rea auth login "${server[@]}" && with_sign_in call test-tool --yes ;;
    auth/client-credentials-basic)
        write_config clientId=@context clientSecret=@context grantType=client_credentials
        rea tools "${server[@]}" ;;
    auth/client-credentials-jwt | auth/cross-app-access-complete-flow)
        echo "rea-tui: $scenario is not supported (private_key_jwt / SEP-990 enterprise grants)" >&2
        exit 1 ;;
    auth/*)
        # The suite's fixed Client ID Metadata Document URL (used when the server supports CIMD).
        write_config clientMetadataUrl=https://conformance-test.local/client-metadata.json
        rea auth login "${server[@]}" && with_sign_in call test-tool --yes ;;
    *)
        echo "rea-tui: no conformance client for scenario $scenario" >&2
        exit 1 ;;
esac
