#!/usr/bin/env bash
# `kbisect report` on a real session: a bisection through the CLI on a real git history with the
# simulated runner (runner: sim measures nothing; it exists for tests like this one), its text
# report, and its HTML page rendered in headless Chromium: a screenshot, the DOM after parsing
# and every console message. Fails on any console message (the page has no script, so any is an
# error; the culprit's subject carries a <script> that logs one if it were not escaped), on a
# DOM without the session's sample points, and on a screenshot without the plots' colours. A
# control page first shows that both checks do fail when they should.
#   html_in_chromium.sh KBISECT WORK_DIR
set -euo pipefail
kbisect=$1 work=$2
here=$(cd "$(dirname "$0")" && pwd)
fail() { echo "FAIL: $*"; exit 1; }
command -v chromium >/dev/null || fail "chromium is not installed; run scripts/deps.sh (make deps)"
rm -rf "$work" && mkdir -p "$work/repo"

git() { command git -C "$work/repo" -c user.name=t -c user.email=t@example.com "$@"; }
# Fixed dates: the same commit ids on every run, so the simulated samples (drawn per commit id)
# and with them every verdict are the same on every run.
git init -q
for i in $(seq 0 30); do
  echo "$i" >"$work/repo/file"
  git add file
  subject="change $i"
  [[ $i -eq 18 ]] && subject='change 18 <script>console.error("injected subject")</script> & co'
  when="2020-01-01T00:$((i / 60)):$((i % 60))"
  GIT_AUTHOR_DATE=$when GIT_COMMITTER_DATE=$when git commit -qm "$subject"
done
good=$(git rev-parse HEAD~30) bad=$(git rev-parse HEAD) planted=$(git rev-parse HEAD~12)
broken=$(git rev-parse HEAD~15)  # the first midpoint

cat >"$work/sim.yaml" <<YAML
name: sim-report
kernel: {repo: $work/repo}
vm: {runner: sim}
metrics: [{name: read.iops, better: higher}]
sim:
  seed: 11
  noise: {dist: lognormal, cv: 5%}
  changes: [{commit: "${planted:0:12}", factor: 0.8}]
  outcomes: [{commit: "${broken:0:12}", outcome: build-failed}]
YAML
db=$work/sim.db

"$kbisect" --db "$db" --json bisect -c "$work/sim.yaml" --good "$good" --bad "$bad" >"$work/bisect.jsonl"
result=$(tail -n 1 "$work/bisect.jsonl")
grep -q "\"culprit\":\"$planted\"" <<<"$result" || fail "the bisection did not find $planted: $result"
session=$(grep -o '"session":[0-9]*' <<<"$result" | head -n 1 | cut -d: -f2)

# The text report.
"$kbisect" --db "$db" report "$session" --html "$work/report.html" >"$work/report.txt"
cat "$work/report.txt"
grep -q "^commit: *$planted (change 18 <script>" "$work/report.txt" || fail "no commit line"
grep -q "^in testcase: *sim-report$" "$work/report.txt" || fail "no testcase line"
grep -q "^culprit vs parent$" "$work/report.txt" || fail "no parent-vs-culprit table"
grep -q "read.iops$" "$work/report.txt" || fail "no metric row"
grep -q "^  revert on bad: *fixes the regression" "$work/report.txt" || fail "no revert check"
grep -q "^bisection path (read.iops" "$work/report.txt" || fail "no bisection path"
grep -q "build-failed: sim: configured outcome build-failed" "$work/report.txt" ||
  fail "the build failure is not reported"
grep -q "^To reproduce:$" "$work/report.txt" || fail "no reproduce section"
grep -qF "bisect -c $work/sim.yaml --good $good --bad $bad --strategy adaptive --fresh" \
  "$work/report.txt" || fail "no exact bisect command"
"$kbisect" --db "$db" report last >"$work/last.txt"
cmp -s "$work/report.txt" <(cat "$work/last.txt"; printf '\nHTML report: %s\n' "$work/report.html") ||
  fail "report last differs from report $session"
if "$kbisect" --db "$db" report 999 2>"$work/unknown.err"; then fail "report of no session exited 0"; fi
grep -q "there is no session 999" "$work/unknown.err" || fail "unclear error: $(cat "$work/unknown.err")"

# Chromium: NAME PAGE renders PAGE into NAME.png and NAME.dom.html, logs into NAME.*.log.
render() {
  local name=$1 page=$2 profile
  for mode in screenshot dump-dom; do
    profile=$(mktemp -d "$work/profile.XXXXXX")
    local output=("--screenshot=$work/$name.png") out=/dev/null
    [[ $mode == dump-dom ]] && output=(--dump-dom) out=$work/$name.dom.html
    timeout 180 chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
      --disable-background-networking --disable-component-update --disable-sync \
      --hide-scrollbars --user-data-dir="$profile" --enable-logging=stderr --v=0 \
      --window-size=1280,2600 "${output[@]}" "file://$page" >"$out" 2>"$work/$name.$mode.log" ||
      fail "chromium ($mode of $page) exited $?: $(tail -n 5 "$work/$name.$mode.log")"
    rm -rf "$profile"
  done
}
console_messages() { grep -h ':CONSOLE' "$work/$1.screenshot.log" "$work/$1.dump-dom.log" || true; }
# Pixels near the colours of bad (#c62828) and good (#1a7f37) samples, at least 30 of each.
plots_visible() {
  python3 "$here/png_colors.py" "$work/$1.png" '#c62828' '#1a7f37' | tee "$work/$1.colours" |
    awk 'NR > 1 && $2 < 30 { short = 1 } END { exit short }'
}

cat >"$work/control.html" <<'HTML'
<!DOCTYPE html><html><head><meta charset="utf-8"><link rel="icon" href="data:,"><title>c</title>
</head><body><p>a page without plots</p><script>console.error("control error")</script></body></html>
HTML
render control "$work/control.html"
[[ -n "$(console_messages control)" ]] || fail "the console check saw nothing on the control page"
if plots_visible control; then fail "the screenshot check passed a page without plots"; fi

render report "$work/report.html"
messages=$(console_messages report)
[[ -z "$messages" ]] || fail "console messages on the report page: $messages"
grep -q '<script' "$work/report.dom.html" && fail "a <script> element reached the DOM"
samples=$("$kbisect" --db "$db" query --format csv \
  "select count(*) from samples where session_id = $session and commit_id not like 'revert:%'" |
  tr -d '\r' | tail -n 1)
points=$(grep -o 'class="sample v-[a-z]*"' "$work/report.dom.html" | wc -l)
[[ $samples -gt 0 && $points -ge $samples ]] ||
  fail "the DOM has $points sample points of the commit plot; the session has $samples samples"
ab_points=$(grep -o 'class="sample side-[a-z]*"' "$work/report.dom.html" | wc -l)
[[ $ab_points -gt 0 ]] || fail "the A/B plots have no points"
[[ $(grep -o 'class="step v-' "$work/report.dom.html" | wc -l) -gt 2 ]] || fail "no bisection path"
plots_visible report || fail "the screenshot shows no plot: $(cat "$work/report.colours")"

echo "commit plot points $points (session samples $samples), A/B points $ab_points"
echo "screenshot colours: $(tr '\n' ' ' <"$work/report.colours")"
echo "screenshot: $work/report.png"
echo "PASS"
