#!/usr/bin/env bash
# Runs mcpconform for the GitHub Action (action.yml): maps the INPUT_*
# variables to flags, writes the step outputs, appends summary.md to the job
# summary and exits with mcpconform's exit code, so the step fails exactly
# when mcpconform does. It needs nothing of Actions but those variables:
# the tests run it as a runner would.
set -uo pipefail

# Bad input: one line and exit 2 before anything runs, as mcpconform does.
die() {
  echo "mcpconform: action: $*" >&2
  exit 2
}

# split NAME TEXT: TEXT's words into array NAME, split on blanks with quotes
# and backslashes honoured, by xargs: nothing in TEXT is ever run.
split() {
  local -n into=$1
  local words
  words=$(printf '%s' "$2" | xargs -r printf '%s\n' 2>/dev/null) ||
    die "cannot split '$2' into words (an unbalanced quote?)"
  into=()
  if [[ -n $words ]]; then mapfile -t into <<<"$words"; fi
}

bin=${MCPCONFORM_BIN:-}
[[ -n $bin ]] || bin=mcpconform
side=${INPUT_SIDE:-server}
target=${INPUT_TARGET:-}
transport=${INPUT_TRANSPORT:-}
versions=${INPUT_SPEC_VERSIONS:-}
expected=${INPUT_EXPECTED_FAILURES:-}
shard=${INPUT_SHARD:-}
out=${INPUT_OUTPUT_DIR:-}
[[ -n $out ]] || out=mcpconform-results
artifact=${INPUT_ARTIFACT_NAME:-}

case $side in
server | client) ;;
*) die "side must be server or client, not '$side'" ;;
esac

extra=()
split extra "${INPUT_EXTRA_ARGS:-}"
argv=() # the target's command line, after --
split argv "$target"
serve=()
split serve "${INPUT_SERVE:-}"

args=("$side")
[[ -z $versions ]] || args+=(--spec-version "$versions")
[[ -z $expected ]] || args+=(--expected-failures "$expected")
[[ -z $shard ]] || args+=(--shard "$shard")
args+=(-o "$out")

if [[ $side == server && -n $target ]]; then
  # The target's form says how it is reached; transport, when given, must agree.
  form=stdio
  case $target in
  http://* | https://*) form=http ;;
  ws://* | wss://*) form=ws ;;
  esac
  [[ -z $transport || $transport == "$form" ]] ||
    die "transport '$transport' does not match the target '$target' (a ${form} target)"
  case $form in
  http) args+=(--url "$target") ;;
  ws) args+=(--ws "$target") ;;
  stdio) args+=(--stdio) ;;
  esac
  [[ $form == stdio ]] || argv=("${serve[@]}")
  [[ $form != stdio || ${#serve[@]} -eq 0 ]] ||
    die "serve starts a server at an http(s):// or ws(s):// target; a stdio target's command is the target itself"
else
  ((${#serve[@]} == 0)) || die "serve goes with side server and an http(s):// or ws(s):// target"

  # The client side, or a server named in extra-args (--reference): the
  # transports are a selection.
  [[ -z $transport ]] || args+=(--transport "$transport")
fi
args+=("${extra[@]}")
if ((${#argv[@]})); then args+=(-- "${argv[@]}"); fi

if [[ -z $artifact ]]; then
  # Unique across a matrix over side, transport, versions and shard.
  artifact="mcpconform-${GITHUB_JOB:-run}-$side-${transport:-all}-${versions:-default}"
  [[ -z $shard ]] || artifact+="-shard-${shard/\//of}"
  artifact=$(printf '%s' "$artifact" | tr -c 'A-Za-z0-9._-' '-')
fi
mkdir -p "$out" || die "cannot create the output directory '$out'"
outdir=$(cd "$out" && pwd)
if [[ -n ${GITHUB_OUTPUT:-} ]]; then
  {
    echo "results-dir=$outdir"
    echo "artifact-name=$artifact"
  } >>"$GITHUB_OUTPUT"
fi

printf '+ mcpconform'
printf ' %q' "${args[@]}"
printf '\n'
"$bin" "${args[@]}"
code=$?

# One annotation per failed check (bounded) on the run's page.
if [[ ${GITHUB_ACTIONS:-} == true && -s $outdir/results.json ]]; then
  "$bin" report annotate "$outdir" || true
fi
if [[ -n ${GITHUB_STEP_SUMMARY:-} ]]; then
  if [[ -s $outdir/summary.md ]]; then
    cat "$outdir/summary.md" >>"$GITHUB_STEP_SUMMARY"
  else
    printf 'mcpconform exited with %d and wrote no summary.md (see the step log).\n' "$code" >>"$GITHUB_STEP_SUMMARY"
  fi
fi
if [[ -n ${GITHUB_OUTPUT:-} ]]; then echo "exit-code=$code" >>"$GITHUB_OUTPUT"; fi
exit "$code"
