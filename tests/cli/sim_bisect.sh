#!/usr/bin/env bash
# The CLI around the search, on a real git history with the simulated runner (runner: sim
# measures nothing; it exists for tests like this one): bisect names the changed commit,
# killed with SIGKILL at random points and run again it gives the same answer with no sample
# lost or doubled (and refuses to run while a live process holds the session), two bisections
# at once on one database answer as they do alone, a second call answers from the database,
# an interrupted session resumed with --resume alone answers as it would have, `kbisect log`
# (with --paths too, and on a history of several merged branches) is accepted by `git bisect
# replay` and leads git to the same first bad commit (and, when only skipped commits are left,
# to the same ones), the culprit is checked
# against its own parent (a second good commit), `kbisect query` reads
# the session, refuses writes, stops on Ctrl-C or SIGTERM and ends quietly when its reader goes
# away, a culprit the confirmation
# refutes hands the search back, a good commit that bad does not descend from has its merge
# base tested first, host drift is reported and not taken for a regression, a scenario that
# cannot run stores no session (nor builds for a device it cannot pass through), one that fails
# before it stores anything makes no database, a failed
# comparison ends aborted, --git-bisect-run's error path (a mistyped option too) aborts with
# 128, and a usage error elsewhere exits 1.
#   sim_bisect.sh KBISECT WORK_DIR
set -euo pipefail
kbisect=$1 work=$2
rm -rf "$work" && mkdir -p "$work"
git() { command git -C "$work/repo" -c user.name=t -c user.email=t@example.com "$@"; }
# history DIR [AUTHOR_DATE]: commits "change 0" to "change 40" of one file. Fixed dates: the
# same commit ids on every run, so the simulated samples (drawn per commit id) and with them
# every verdict are the same on every run.
history() {
  command git init -q "$1"
  for i in $(seq 0 40); do
    echo "$i" >"$1/file"
    command git -C "$1" add file
    local when="2020-01-01T00:00:$((i % 60))"
    GIT_AUTHOR_DATE=${2:-$when} GIT_COMMITTER_DATE=$when \
      command git -C "$1" -c user.name=t -c user.email=t@example.com commit -qm "change $i"
  done
}
history "$work/repo"
good=$(git rev-parse HEAD~40) bad=$(git rev-parse HEAD) planted=$(git rev-parse HEAD~13)

cat >"$work/sim.yaml" <<YAML
name: sim-cli
kernel: {repo: $work/repo}
vm: {runner: sim}
metrics: [{name: read.iops, better: higher}]
sim:
  seed: 7
  noise: {dist: lognormal, cv: 5%}
  changes: [{commit: "change 27", factor: 0.85}]
  outcomes: [{commit: "change 20", outcome: build-failed}]
YAML
db=$work/sim.db
fail() { echo "FAIL: $*"; exit 1; }

"$kbisect" --db "$db" --json bisect -c "$work/sim.yaml" --good "$good" --bad "$bad" >"$work/first.jsonl"
result=$(tail -n 1 "$work/first.jsonl") first_result=$(tail -n 1 "$work/first.jsonl")
grep -q "\"culprit\":\"$planted\"" <<<"$result" || fail "culprit is not $planted: $result"
grep -q '"verdict":"found"' <<<"$result" || fail "verdict: $result"
grep -q '"confirmed":true' <<<"$result" || fail "not confirmed: $result"
grep -q "\"parents\":\[\"$(git rev-parse "$planted^")\"\]" <<<"$result" || fail "parents: $result"
grep -q "\"revert_commit\":\"revert:$planted@$bad\"" <<<"$result" || fail "revert_commit: $result"
grep -q '"event":"verdict"' "$work/first.jsonl" || fail "no verdict events in --json output"
skipped=$(git rev-parse HEAD~20)
grep -q "\"skipped\":\[\"$skipped\"\]" <<<"$result" || fail "skipped: $result"
grep -q "\"skip_reasons\":{\"$skipped\":\"build-failed: " <<<"$result" || fail "skip_reasons: $result"

# kill -9 at random points of the same bisection, then the same command again, until one run
# answers: the answer is the uninterrupted run's to the byte, and no sample is lost or doubled.
killed_db=$work/killed.db
count_in() { # DB SQL: the one value SQL selects, 0 before there is one (sqlite3: it is quick)
  local value
  value=$(sqlite3 "file:$1?mode=ro" "$2" 2>/dev/null) || true
  echo "${value:-0}"
}
count() { count_in "$killed_db" "$1"; }
journaled() { count "select count(*) from journal where kind = 'sample'"; }
bisect_killed_db() {
  "$kbisect" --db "$killed_db" --json bisect -c "$work/sim.yaml" --good "$good" --bad "$bad"
}
# One process runs a session at a time: while a live process holds the session's lock (here
# a stand-in, `sleep`), another run refuses and says who holds it.
refused_while_held() {
  sleep 60 &
  local holder=$!
  sqlite3 "$killed_db" "UPDATE locks SET pid = $holder WHERE name = 'bisect:1'"
  if bisect_killed_db >"$work/held.out" 2>&1; then fail "held: ran a session a live process holds"; fi
  grep -q "lock 'bisect:1' in .* is held by process $holder (sleep)" "$work/held.out" ||
    fail "held: $(cat "$work/held.out")"
  # Its result says who holds the session, and claims neither its samples nor its steps.
  local refused
  refused=$(grep '"verdict":"aborted"' "$work/held.out")
  [[ $refused == *'"samples":0,"session":null,"steps":0,'* &&
     $refused == *"\"holder\":{"*"\"pid\":$holder}"* ]] || fail "held, the result: $refused"
  kill "$holder" && wait "$holder" 2>/dev/null || true
}
mid_session_kills=0 kills_before_journaling=0 answered=
for attempt in $(seq 1 100); do
  "$kbisect" --db "$killed_db" --json bisect -c "$work/sim.yaml" --good "$good" --bad "$bad" \
    >"$work/killed.jsonl" 2>"$work/killed.err" &
  pid=$!
  target=$(($(journaled) + RANDOM % 4 + 1))
  while kill -0 "$pid" 2>/dev/null && (($(journaled) < target)); do sleep 0.01; done
  kill -9 "$pid" 2>/dev/null || true
  if wait "$pid" 2>/dev/null; then answered=yes && break; fi
  cat "$work/killed.jsonl" >>"$work/killed-all.jsonl"
  [[ $(count "select status from sessions") == running ]] || continue
  mid_session_kills=$((mid_session_kills + 1))
  (($(count "select count(*) from runs where id not in (select run_id from journal
                                                        where run_id is not null)") > 0)) &&
    kills_before_journaling=$((kills_before_journaling + 1))
  ((mid_session_kills == 1)) && refused_while_held
done
[[ -n "$answered" ]] || fail "killed: no run answered in 100 attempts: $(cat "$work/killed.err")"
((mid_session_kills >= 2)) || fail "killed: only $mid_session_kills kills landed mid-session"
echo "killed $mid_session_kills times mid-session ($kills_before_journaling between storing a run" \
  "and journaling it), in $attempt runs"
cat "$work/killed.jsonl" >>"$work/killed-all.jsonl"
grep -q "took over lock 'bisect:1' from process" "$work/killed-all.jsonl" ||
  fail "killed: no run took over the killed one's lock"
[[ $(tail -n 1 "$work/killed.jsonl") == "$result" ]] ||
  fail "killed $mid_session_kills times, answered differently: $(tail -n 1 "$work/killed.jsonl")"
samples=$(grep -o '"samples":[0-9]*' <<<"$result" | cut -d: -f2)
[[ $(journaled) == "$samples" ]] || fail "killed: $(journaled) samples journaled, $samples in the answer"
[[ $(count "select count(*) from samples") == "$samples" ]] ||
  fail "killed: $(count "select count(*) from samples") samples stored, $samples in the answer"
[[ $(count "select count(*) from sessions") == 1 ]] || fail "killed: more than one session"

again=$("$kbisect" --db "$db" --json bisect -c "$work/sim.yaml" --good "$good" --bad "$bad")
[[ "$again" == "$result" ]] || fail "the stored session answered differently: $again"

# --resume N goes on asking what session N was started with: a bayes session interrupted
# mid-search (Ctrl-C) says how to continue it, and resumed with --resume alone answers as it
# does uninterrupted. On a resume the question cannot change, and a bisection that asks
# another (here another confidence, metric or alpha) is a session of its own, not the stored
# answer.
asked=(bisect -c "$work/sim.yaml" --good "$good" --bad "$bad" --strategy bayes --confidence 0.9)
whole=$("$kbisect" --db "$work/whole.db" --json "${asked[@]}" | tail -n 1)
for attempt in $(seq 1 50); do
  rm -f "$work/resumed.db"
  "$kbisect" --db "$work/resumed.db" --json "${asked[@]}" >"$work/interrupted.jsonl" \
    2>"$work/interrupted.err" &
  pid=$!
  while kill -0 "$pid" 2>/dev/null &&
    (($(count_in "$work/resumed.db" "select count(*) from journal where kind = 'sample'") < 15)); do
    sleep 0.01
  done
  kill -INT "$pid" 2>/dev/null || true
  status=0 && wait "$pid" 2>/dev/null || status=$?
  ((status == 130)) && break
done
((status == 130)) || fail "resume: no Ctrl-C landed mid-session in 50 attempts"
[[ $(count_in "$work/resumed.db" "select status from sessions") == running ]] ||
  fail "resume: the interrupted session is not resumable"
grep -qF "continue it with \`kbisect --db $work/resumed.db bisect -c $work/sim.yaml --resume 1\`" \
  "$work/interrupted.jsonl" || fail "resume: no hint after Ctrl-C: $(cat "$work/interrupted.jsonl")"
# --json output ends with the result object, also when the search stopped or never began.
tail -n 1 "$work/interrupted.jsonl" | grep -q '^{"confirmed":false,"culprit":null,"message":"interrupted by SIGINT; everything started was stopped","samples":[0-9]*,"session":1,"steps":[0-9]*,"verdict":"aborted"}$' ||
  fail "resume: --json after Ctrl-C ends with: $(tail -n 1 "$work/interrupted.jsonl")"
# Its steps are the commits the search measured so far, skips and endpoints not counted.
visited=$(count_in "$work/resumed.db" "select count(distinct commit_id) from steps
  where role = 'search' and commit_id not in ('$good', '$bad')
  and commit_id not in (select commit_id from verdicts where verdict = 'skip')")
tail -n 1 "$work/interrupted.jsonl" | grep -q "\"steps\":$visited," ||
  fail "resume: steps after Ctrl-C, want $visited: $(tail -n 1 "$work/interrupted.jsonl")"
status=0
"$kbisect" --db "$work/resumed.db" --json bisect -c "$work/no-such.yaml" --resume 1 \
  >"$work/no-config.jsonl" 2>/dev/null || status=$?
[[ $status -eq 1 ]] && tail -n 1 "$work/no-config.jsonl" | grep -q '"session":null,"steps":0,"verdict":"aborted"}$' ||
  fail "--json without a config: exit $status, ends with: $(tail -n 1 "$work/no-config.jsonl")"
resumed=$("$kbisect" --db "$work/resumed.db" --json bisect -c "$work/sim.yaml" --resume 1 | tail -n 1)
[[ "$resumed" == "$whole" ]] || fail "resume: answered $resumed, uninterrupted $whole"
if "$kbisect" --db "$work/resumed.db" bisect -c "$work/sim.yaml" --resume 1 --strategy adaptive \
  2>"$work/resume.err"; then
  fail "resume: took another strategy"
fi
# CLI11's usage errors begin as kbisect's own do.
grep -q "^kbisect: error: .*excludes" "$work/resume.err" || fail "resume: $(cat "$work/resume.err")"
# A resume that finds no session writes nothing: no database, no directory, no tables in an
# empty file; a file that is no SQLite database is named as such.
if "$kbisect" --db "$work/none/x.db" bisect -c "$work/sim.yaml" --resume 3 2>"$work/resume.err"; then
  fail "resume: session 3 of a missing database"
fi
grep -qF "there is no bisect session 3 in $work/none/x.db" "$work/resume.err" ||
  fail "resume: $(cat "$work/resume.err")"
[[ ! -e "$work/none" ]] || fail "resume: a resume of nothing made $work/none"
: >"$work/empty.db"
"$kbisect" --db "$work/empty.db" bisect -c "$work/sim.yaml" --resume 1 2>/dev/null &&
  fail "resume: session 1 of an empty file"
[[ ! -s "$work/empty.db" ]] || fail "resume: wrote tables into an empty file"
printf 'not a database at all, but long enough to have a header of sorts......\n' >"$work/junk.db"
if "$kbisect" --db "$work/junk.db" bisect -c "$work/sim.yaml" --resume 1 2>"$work/resume.err"; then
  fail "resume: session 1 of a text file"
fi
grep -qF "$work/junk.db is not a kbisect results database (it is no SQLite database)" \
  "$work/resume.err" || fail "resume: $(cat "$work/resume.err")"
sed -e 's/cv: 5%/cv: 9%/' "$work/sim.yaml" >"$work/other-noise.yaml"
if "$kbisect" --db "$work/resumed.db" bisect -c "$work/other-noise.yaml" --resume 1 \
  2>"$work/resume.err"; then
  fail "resume: went on under another scenario"
fi
grep -q "session 1 was started with another scenario than $work/other-noise.yaml" \
  "$work/resume.err" || fail "resume: $(cat "$work/resume.err")"
# The session's journal holds values of its metric, judged at its settings: another metric or
# alpha neither resumes it nor gets its stored answer.
sed -e 's/name: read.iops, better: higher/name: write.iops, better: lower/' \
  -e 's/^sim:/bisect: {alpha: 0.05}\nsim:/' "$work/sim.yaml" >"$work/other-judging.yaml"
if "$kbisect" --db "$work/resumed.db" bisect -c "$work/other-judging.yaml" --resume 1 \
  2>"$work/resume.err"; then
  fail "resume: went on judging by another metric"
fi
grep -q 'session 1 was started judging by alpha 0.01 (now 0.05), better "higher" (now "lower"), metric "read.iops" (now "write.iops")' \
  "$work/resume.err" || fail "resume: $(cat "$work/resume.err")"
judged=$("$kbisect" --db "$db" --json bisect -c "$work/other-judging.yaml" --good "$good" \
  --bad "$bad" | tail -n 1)
grep -q '"session":1,' <<<"$judged" && fail "another metric answered from session 1: $judged"
other=$("$kbisect" --db "$db" --json bisect -c "$work/sim.yaml" --good "$good" --bad "$bad" \
  --confidence 0.99 | tail -n 1)
grep -q '"session":1,' <<<"$other" && fail "another confidence answered from session 1: $other"

"$kbisect" --db "$db" log 1 >"$work/bisect.log"
git bisect replay "$work/bisect.log" >"$work/replay.out" 2>&1 || { cat "$work/replay.out"; fail "git bisect replay"; }
grep -q "^$planted is the first bad commit" "$work/replay.out" || { cat "$work/replay.out"; fail "replay did not end at $planted"; }
git bisect reset >/dev/null 2>&1
# The search's decisions alone lead git there too on a linear history: the answer's marks at the
# end, which would on their own, are left out.
grep -q "^# kbisect's answer, confirmed: the culprit bad, its parents good$" "$work/bisect.log" ||
  fail "the log's answer: $(cat "$work/bisect.log")"
sed "/^# kbisect's answer/,\$d" "$work/bisect.log" >"$work/decisions.log"
git bisect replay "$work/decisions.log" >"$work/decisions.out" 2>&1 ||
  { cat "$work/decisions.out"; fail "git bisect replay of the decisions"; }
grep -q "^$planted is the first bad commit" "$work/decisions.out" ||
  { cat "$work/decisions.out"; fail "the decisions alone did not lead git to $planted"; }
git bisect reset >/dev/null 2>&1
# A log that could not all be written (a full disk) is an error, not a success.
if "$kbisect" --db "$db" log 1 >/dev/full 2>"$work/full.err"; then fail "log to a full disk exited 0"; fi
grep -q "cannot write the output: No space left on device" "$work/full.err" ||
  fail "log to a full disk: $(cat "$work/full.err")"
# The log of a session whose scenario file is gone still replays; it says why it has no
# subjects.
cp "$work/sim.yaml" "$work/gone.yaml"
"$kbisect" --db "$work/gone.db" bisect -c "$work/gone.yaml" --good "$good" --bad "$bad" >/dev/null
rm "$work/gone.yaml"
"$kbisect" --db "$work/gone.db" log 1 >"$work/gone.log" || fail "log without its scenario file"
grep -q "^# commit subjects are unavailable: cannot read config $work/gone.yaml" "$work/gone.log" ||
  fail "log without its scenario file: $(head -n 3 "$work/gone.log")"
git bisect replay "$work/gone.log" >"$work/gone.out" 2>&1 || fail "replay: $(cat "$work/gone.out")"
grep -q "^$planted is the first bad commit" "$work/gone.out" || fail "gone replay: $(cat "$work/gone.out")"
git bisect reset >/dev/null 2>&1
# So does the log of a session whose scenario now names a tree without its commits (re-cloned).
git init -q "$work/other-tree"
git -C "$work/other-tree" -c user.name=k -c user.email=k@x commit -q --allow-empty -m other
sed "s|$work/repo|$work/other-tree|" "$work/sim.yaml" >"$work/gone.yaml"
grep -q "$work/other-tree" "$work/gone.yaml" || fail "the scenario names no repository to replace"
"$kbisect" --db "$work/gone.db" log 1 >"$work/recloned.log" || fail "log of a re-cloned tree"
grep -q "^# bad: \[$bad\] (subject unavailable: not in the kernel repository)" \
  "$work/recloned.log" || fail "log of a re-cloned tree: $(head -n 3 "$work/recloned.log")"
git bisect replay "$work/recloned.log" >"$work/gone.out" 2>&1 || fail "replay: $(cat "$work/gone.out")"
git bisect reset >/dev/null 2>&1
# With path limiting the log starts as git's does, so replay considers the same commits. A
# path is taken as git takes it ("./file" is "file").
limited=$("$kbisect" --db "$db" --json bisect -c "$work/sim.yaml" --good "$good" --bad "$bad" \
  --paths ./file | tail -n 1)
session=$(grep -o '"session":[0-9]*' <<<"$limited" | cut -d: -f2)
"$kbisect" --db "$db" log "$session" >"$work/limited.log"
grep -qx "git bisect start '$bad' '$good' '--' 'file'" "$work/limited.log" ||
  fail "log with --paths starts: $(grep -v '^#' "$work/limited.log" | head -n 1)"
git bisect replay "$work/limited.log" >"$work/limited.out" 2>&1 || fail "replay: $(cat "$work/limited.out")"
grep -q "^$planted is the first bad commit" "$work/limited.out" || fail "limited replay: $(cat "$work/limited.out")"
git bisect reset >/dev/null 2>&1
# A path is normalised as git does: "sub/../file/" asks the same question, which is answered.
again=$("$kbisect" --db "$db" --json bisect -c "$work/sim.yaml" --good "$good" --bad "$bad" \
  --paths sub/../file/ | tail -n 1)
grep -q "\"session\":$session," <<<"$again" || fail "--paths sub/../file/: $again"
if "$kbisect" --db "$db" bisect -c "$work/sim.yaml" --good "$good" --bad "$bad" --paths ../file \
  2>"$work/outside.err"; then fail "--paths ../file ran"; fi
grep -q "is outside the kernel tree" "$work/outside.err" || fail "--paths ../file: $(cat "$work/outside.err")"
# The culprit is checked against its own parent, also where that is a second good commit
# outside the candidates, not against the first good one.
parent=$(git rev-parse "$planted^")
grep -v "outcomes:" "$work/sim.yaml" >"$work/two-goods.yaml"  # change 20 is no candidate
two_goods=$("$kbisect" --db "$work/two-goods.db" --json bisect -c "$work/two-goods.yaml" --good "$good" \
  --good "$parent" --bad "$bad" | tail -n 1)
grep -q "\"culprit\":\"$planted\"" <<<"$two_goods" || fail "two goods: culprit: $two_goods"
grep -q "\"parents\":\[\"$parent\"\]" <<<"$two_goods" || fail "two goods: parents: $two_goods"
# A path that is not UTF-8 cannot be kept as the session's question: refused before anything.
status=0
"$kbisect" --db "$work/bad-path.db" bisect -c "$work/sim.yaml" --good "$good" --bad "$bad" \
  --paths file --paths $'\xff' >"$work/bad-path.out" 2>&1 || status=$?
[[ $status -ne 0 ]] || fail "a path that is not UTF-8 was accepted"
grep -q -- "--paths: not UTF-8 text" "$work/bad-path.out" || fail "bad path: $(cat "$work/bad-path.out")"
[[ ! -e "$work/bad-path.db" ]] || fail "a refused bisection created its database"
status=0
"$kbisect" --db "$work/bad-path.db" bisect -c "$work/sim.yaml" --good "$good" --bad "$bad" \
  --paths ':(glob)**/file' >"$work/bad-path.out" 2>&1 || status=$?
[[ $status -eq 1 ]] && grep -q -- "--paths: pathspec magic (:(glob), :!...) is not supported" \
  "$work/bad-path.out" || fail "pathspec magic: exit $status: $(cat "$work/bad-path.out")"
# When the planted commit does not boot, only it and the bad commit above it remain: kbisect
# says so and lists them with the skip's reason, and its log leaves git with the same two.
sed -e 's|^name: sim-cli|name: sim-only-skipped|' -e 's|"change 20", outcome: build-failed|"change 27", outcome: boot-failed|' \
  "$work/sim.yaml" >"$work/only-skipped.yaml"
status=0
"$kbisect" --db "$work/only-skipped.db" bisect -c "$work/only-skipped.yaml" --good "$good" \
  --bad "$bad" >"$work/only-skipped.out" || status=$?
[[ $status -eq 2 ]] || fail "only skipped: exit $status, not 2"
first_bad=$(git rev-parse HEAD~12)
grep -q "^only skipped commits are left; the culprit is one of: ${first_bad:0:12} ${planted:0:12}$" \
  "$work/only-skipped.out" || fail "only skipped: $(cat "$work/only-skipped.out")"
[[ $(grep -c "only skipped commits are left" "$work/only-skipped.out") -eq 1 ]] ||
  fail "only skipped, said more than once: $(cat "$work/only-skipped.out")"
grep -q "^skipped:  ${planted:0:12} change 27 (boot-failed: " "$work/only-skipped.out" ||
  fail "only skipped, the skip's line: $(cat "$work/only-skipped.out")"
"$kbisect" --db "$work/only-skipped.db" log 1 >"$work/only-skipped.log"
git bisect replay "$work/only-skipped.log" >"$work/only-skipped-replay.out" 2>&1 || true
[[ $(sed -n '/^The first bad commit could be any of:$/,/^We cannot bisect more!$/p' \
  "$work/only-skipped-replay.out" | sort) == $(printf '%s\n' "$planted" "$first_bad" \
  "The first bad commit could be any of:" "We cannot bisect more!" | sort) ]] ||
  fail "only skipped, replay: $(cat "$work/only-skipped-replay.out")"
git bisect reset >/dev/null 2>&1
# Its replay ends without a first bad commit; the log says why.
grep -q "^# kbisect named no first bad commit: only-skipped: " "$work/only-skipped.log" ||
  fail "only skipped, the log does not say why it ends: $(tail -n 2 "$work/only-skipped.log")"

"$kbisect" --db "$db" query --format csv "select count(*) as n from samples" | tr -d "\r" | tail -n 1 | grep -qE '^[1-9][0-9]*$' ||
  fail "query found no samples"
if "$kbisect" --db "$db" query "delete from samples" 2>"$work/query.err"; then fail "query wrote"; fi
grep -q "read-only" "$work/query.err" || fail "no read-only message: $(cat "$work/query.err")"
# A query that would never end stops on Ctrl-C or SIGTERM (within its one long step) and says so,
# with the signal's exit code.
for signal in INT:130 TERM:143; do
  status=0
  timeout --preserve-status -s "${signal%:*}" -k 30 1 "$kbisect" --db "$db" query --format csv \
    "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c" \
    >/dev/null 2>"$work/query.err" || status=$?
  [[ $status -eq ${signal#*:} ]] && grep -q "^kbisect: interrupted by SIG${signal%:*}" "$work/query.err" ||
    fail "query on SIG${signal%:*}: exit $status: $(cat "$work/query.err")"
done
# A report whose HTML page cannot be written says so before it prints anything.
if "$kbisect" --db "$db" report last --html "$work/no/such/dir/r.html" >"$work/out" 2>"$work/html.err"; then
  fail "report --html into a missing directory passed"
fi
[[ ! -s $work/out ]] && grep -q "cannot write $work/no/such/dir/r.html" "$work/html.err" ||
  fail "report --html into a missing directory: $(cat "$work/out" "$work/html.err")"
# A query whose reader goes away (| head) ends as cat would: SIGPIPE's exit code, nothing said.
statuses=$("$kbisect" --db "$db" query --format csv \
  "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 200000) SELECT x FROM c" \
  2>"$work/pipe.err" | head -n 1 >/dev/null; echo "${PIPESTATUS[*]}")
[[ $statuses == "141 0" && ! -s $work/pipe.err ]] ||
  fail "query | head: exit $statuses: $(cat "$work/pipe.err")"
# The global --json: query answers in JSON lines, an object a row; log and report, which print
# text, say so. --json and --format together are a usage error.
"$kbisect" --db "$db" --json query sessions |
  python3 -c 'import json, sys; rows = [json.loads(line) for line in sys.stdin]; assert rows and all(isinstance(r, dict) for r in rows)' ||
  fail "--json query is not JSON lines of one object a row"
if "$kbisect" --db "$db" --json query --format csv sessions >"$work/out" 2>"$work/json.err"; then
  fail "--json query --format csv printed: $(cat "$work/out")"
fi
grep -q "give it or --format csv, not both" "$work/json.err" || fail "--json --format csv: $(cat "$work/json.err")"
for command in "log 1" "report 1"; do
  # shellcheck disable=SC2086
  if "$kbisect" --db "$db" --json $command >/dev/null 2>"$work/json.err"; then
    fail "--json $command printed text"
  fi
  grep -q "kbisect query --format json" "$work/json.err" || fail "--json $command: $(cat "$work/json.err")"
done

# An empty --html is a usage error, not a page silently not written.
if "$kbisect" --db "$db" report 1 --html "" >/dev/null 2>"$work/html.err"; then
  fail "report --html '' succeeded"
fi
grep -q -- "--html: needs a file" "$work/html.err" || fail "report --html '': $(cat "$work/html.err")"

# At this author date the planted commit's first three samples draw high and the search
# judges it good; the confirmation finds the commit named first no worse than it, and the
# search goes on with the confirmation's samples to the planted commit.
history "$work/repo-refuted" "@1796328775 +0000"
refuted_repo() { command git -C "$work/repo-refuted" "$@"; }
sed -e "s|^name: sim-cli|name: sim-refuted|" -e "s|repo: $work/repo}|repo: $work/repo-refuted}|" \
  "$work/sim.yaml" >"$work/refuted.yaml"
"$kbisect" --db "$db" --json bisect -c "$work/refuted.yaml" \
  --good "$(refuted_repo rev-parse HEAD~40)" --bad "$(refuted_repo rev-parse HEAD)" >"$work/refuted.jsonl"
result=$(tail -n 1 "$work/refuted.jsonl")
planted=$(refuted_repo rev-parse HEAD~13) child=$(refuted_repo rev-parse HEAD~12)
grep -q "\"culprit\":\"$planted\"" <<<"$result" || fail "refuted: culprit is not $planted: $result"
grep -q '"confirmed":true' <<<"$result" || fail "refuted: not confirmed: $result"
grep -q "\"refuted\":\[{\"commit\":\"$child\",\"parent_check\":\"not worse than parent ${planted:0:12}" \
  <<<"$result" || fail "refuted: $child is not the refuted culprit: $result"
session=$(grep -o '"session":[0-9]*' <<<"$result" | cut -d: -f2)
"$kbisect" --db "$db" log "$session" >"$work/refuted.log"
refuted_repo bisect replay "$work/refuted.log" >"$work/refuted-replay.out" 2>&1 ||
  { cat "$work/refuted-replay.out"; fail "refuted: git bisect replay"; }
grep -q "^$planted is the first bad commit" "$work/refuted-replay.out" ||
  { cat "$work/refuted-replay.out"; fail "refuted: replay did not end at $planted"; }
refuted_repo bisect reset >/dev/null 2>&1
# An undecided verdict after a commit's decision (more samples that did not settle it) leaves
# the decision in the log, as in the report.
sqlite3 "$db" ".backup $work/undecided.db"
sqlite3 "$work/undecided.db" "insert into verdicts (session_id, step, commit_id, verdict, samples,
  good_samples, bad_samples, phase) select session_id, step, commit_id, 'undecided', samples,
  good_samples, bad_samples, phase from verdicts where session_id = $session
  and verdict != 'undecided' and phase = 'search'"
"$kbisect" --db "$work/undecided.db" log "$session" | cmp -s - "$work/refuted.log" ||
  fail "undecided verdicts after decisions changed the log"
"$kbisect" --db "$db" report "$session" >"$work/refuted-report.txt"
grep -q "^  refuted before: *${child:0:12}: not worse than parent" "$work/refuted-report.txt" ||
  fail "refuted: the report does not say: $(cat "$work/refuted-report.txt")"
refuted_result=$result

# Two bisections at once on one database, each its own session: both answer as they did alone.
both_db=$work/both.db
"$kbisect" --db "$both_db" --json bisect -c "$work/sim.yaml" --good "$good" --bad "$bad" \
  >"$work/both-first.jsonl" &
first_pid=$!
"$kbisect" --db "$both_db" --json bisect -c "$work/refuted.yaml" --good "$(refuted_repo rev-parse HEAD~40)" \
  --bad "$(refuted_repo rev-parse HEAD)" >"$work/both-refuted.jsonl" || fail "both: the refuted one failed"
wait "$first_pid" || fail "both: the first one failed"
without_session() { sed 's/"session":[0-9]*,//'; }
[[ $(tail -n 1 "$work/both-first.jsonl" | without_session) == "$(without_session <<<"$first_result")" ]] ||
  fail "both: the first answered differently: $(tail -n 1 "$work/both-first.jsonl")"
[[ $(tail -n 1 "$work/both-refuted.jsonl" | without_session) == "$(without_session <<<"$refuted_result")" ]] ||
  fail "both: the refuted one answered differently: $(tail -n 1 "$work/both-refuted.jsonl")"
[[ $(sqlite3 "$both_db" "PRAGMA integrity_check") == ok ]] || fail "both: the database is damaged"
# One question asked twice at once: one session, measured once; the other process answers from
# it or finds it locked.
for try in 1 2 3 4 5; do
  twice_db=$work/twice-$try.db
  "$kbisect" --db "$twice_db" bisect -c "$work/sim.yaml" --good "$good" --bad "$bad" >/dev/null 2>&1 &
  twice_pid=$!
  "$kbisect" --db "$twice_db" bisect -c "$work/sim.yaml" --good "$good" --bad "$bad" >/dev/null 2>&1 || true
  wait "$twice_pid" || true
  [[ $(sqlite3 "$twice_db" "select count(*) from sessions") == 1 ]] ||
    fail "asked twice at once: sessions $(sqlite3 "$twice_db" "select id, status from sessions")"
done

# A good commit on a side branch (not an ancestor of bad): its merge base with bad, change
# 10, is tested first, as git bisect does, and found good; the log replays through it.
git checkout -q -b side HEAD~30
echo side >"$work/repo/side"
git add side
GIT_AUTHOR_DATE=2020-01-02T00:00:00 GIT_COMMITTER_DATE=2020-01-02T00:00:00 git commit -qm "side 1"
side=$(git rev-parse HEAD) merge_base=$(git rev-parse HEAD~1)
git checkout -q -
planted=$(git rev-parse HEAD~13)
"$kbisect" --db "$db" --json bisect -c "$work/sim.yaml" --good "$side" --bad "$bad" >"$work/side.jsonl"
result=$(tail -n 1 "$work/side.jsonl")
grep -q "\"culprit\":\"$planted\"" <<<"$result" || fail "side: culprit is not $planted: $result"
grep -q "\"commit\":\"$merge_base\",\"event\":\"verdict\",.*\"verdict\":\"good\"" "$work/side.jsonl" ||
  fail "side: no good verdict on the merge base $merge_base"
session=$(grep -o '"session":[0-9]*' <<<"$result" | cut -d: -f2)
"$kbisect" --db "$db" log "$session" >"$work/side.log"
grep -q "^git bisect good $merge_base" "$work/side.log" || fail "side: the log does not mark the merge base"
git bisect replay "$work/side.log" >"$work/side-replay.out" 2>&1 ||
  { cat "$work/side-replay.out"; fail "side: git bisect replay"; }
grep -q "^$planted is the first bad commit" "$work/side-replay.out" ||
  { cat "$work/side-replay.out"; fail "side: replay did not end at $planted"; }
git bisect reset >/dev/null 2>&1
# The HTML report draws the merge base's samples and step too.
"$kbisect" --db "$db" report "$session" --html "$work/side.html" >/dev/null
grep -q "<title>step [0-9]*: ${merge_base:0:12}" "$work/side.html" ||
  fail "side: the HTML report's path leaves out the merge base"

# A culprit on a merged branch, good an ancestor of bad: git checks that only at the start, so
# replay must not ask for the merge base of the branch and a later good commit.
merged() { command git -C "$work/merged" -c user.name=t -c user.email=t@example.com "$@"; }
commit_in_merged() {  # FILE SUBJECT NUMBER
  echo "$2" >>"$work/merged/$1"
  merged add "$1"
  GIT_AUTHOR_DATE="2020-01-03T00:00:$3" GIT_COMMITTER_DATE="2020-01-03T00:00:$3" merged commit -qm "$2"
}
command git init -q "$work/merged"
for i in $(seq 10 29); do commit_in_merged main "main $i" "$i"; done
merged checkout -q -b branch HEAD~15
for i in $(seq 30 39); do commit_in_merged branch "branch $i" "$i"; done
merged checkout -q -
GIT_AUTHOR_DATE=2020-01-03T00:00:40 GIT_COMMITTER_DATE=2020-01-03T00:00:40 \
  merged merge -q --no-ff branch -m "merge branch"
for i in $(seq 41 50); do commit_in_merged main "main $i" "$i"; done
sed -e "s|repo: $work/repo|repo: $work/merged|" -e 's/"change 27"/"branch 30"/' -e '/^  outcomes:/d' \
  "$work/sim.yaml" >"$work/merged.yaml"
# bisect_replays NAME: bisects $work/NAME from its root to its head with $work/NAME.yaml, which
# must name $planted, and has git bisect replay the log, which must lead git there too.
bisect_replays() {
  local name=$1
  local repo=(command git -C "$work/$name")
  "$kbisect" --db "$work/$name.db" bisect -c "$work/$name.yaml" \
    --good "$("${repo[@]}" rev-list --max-parents=0 HEAD)" --bad "$("${repo[@]}" rev-parse HEAD)" \
    >"$work/$name.out" || fail "$name: $(cat "$work/$name.out")"
  grep -q "^culprit:  $planted " "$work/$name.out" || fail "$name: culprit: $(cat "$work/$name.out")"
  "$kbisect" --db "$work/$name.db" log 1 >"$work/$name.log"
  "${repo[@]}" bisect replay "$work/$name.log" >"$work/$name-replay.out" 2>&1 ||
    { cat "$work/$name-replay.out"; fail "$name: git bisect replay"; }
  grep -q "^$planted is the first bad commit" "$work/$name-replay.out" ||
    { cat "$work/$name.log" "$work/$name-replay.out"; fail "$name: replay did not end at $planted"; }
  "${repo[@]}" bisect reset >/dev/null 2>&1
}
planted=$(merged log --format=%H -1 --grep="^branch 30$")
bisect_replays merged

# Three branches merged in turn: the search judges a commit against every bad one, so some of
# its bad marks lie on another branch than the one before, and git, which keeps one bad commit,
# moves with each. The log ends with the answer as marks (the culprit bad, its parents good), so
# replay reaches the culprit all the same (without them git stopped 4 commits short of it).
branches() { command git -C "$work/branches" -c user.name=t -c user.email=t@example.com "$@"; }
tick=0
commit_in_branches() {  # FILE SUBJECT
  tick=$((tick + 1))
  echo "$2 $tick" >>"$work/branches/$1"
  branches add -- "$1"
  GIT_AUTHOR_DATE="@$((1577836800 + tick)) +0000" GIT_COMMITTER_DATE="@$((1577836800 + tick)) +0000" \
    branches commit -qm "$2"
}
command git init -q -b master "$work/branches"
for i in 1 2 3 4 5 6; do commit_in_branches main "main $i"; done
for b in 1 2 3; do
  branches checkout -q -b "br$b" "master~$b"
  for j in 1 2 3 4; do commit_in_branches "f$b" "br$b c$j"; done
  branches checkout -q master
  for i in 1 2 3; do commit_in_branches main "main $b.$i"; done
  tick=$((tick + 1))
  GIT_AUTHOR_DATE="@$((1577836800 + tick)) +0000" GIT_COMMITTER_DATE="@$((1577836800 + tick)) +0000" \
    branches merge -q --no-ff "br$b" -m "merge br$b"
done
for i in 1 2 3 4; do commit_in_branches main "tail $i"; done
cat >"$work/branches.yaml" <<YAML
name: branches
kernel: {repo: $work/branches}
vm: {runner: sim}
metrics: [{name: read.iops, better: higher}]
sim: {seed: 53, noise: {dist: normal, cv: 2%}, changes: [{commit: "main 5", factor: 0.8}]}
YAML
planted=$(branches log --format=%H -1 --grep="^main 5$")
bisect_replays branches

# A host that slows down by 0.8% per sample and no change: no regression, and the summary
# says how the host drifted.
sed -e 's/^name: sim-cli/name: sim-drift/' -e '/^  changes:/d' -e '/^  outcomes:/d' \
  -e 's/^  noise: .*/  noise: {dist: normal, cv: 2%}\n  drift_per_sample: -0.8%/' \
  "$work/sim.yaml" >"$work/drift.yaml"
"$kbisect" --db "$db" bisect -c "$work/drift.yaml" --good "$good" --bad "$bad" >"$work/drift.out" ||
  fail "drift bisect: $(cat "$work/drift.out")"
grep -q "^good and bad do not differ.*as the host was at the start, its drift taken out$" "$work/drift.out" ||
  fail "drift taken for a regression: $(cat "$work/drift.out")"
grep -Eq "^host drift: the endpoints moved by -(7[5-9]|8[0-5])% of good at the start per 100 samples" "$work/drift.out" ||
  fail "no host drift line: $(cat "$work/drift.out")"

# last names the newest session in log and in the steps query, as it does in report.
newest=$(sqlite3 "$db" "select max(id) from sessions")
for command in log "query --format csv steps"; do
  "$kbisect" --db "$db" $command last >"$work/last.out" || fail "$command last: $(cat "$work/last.out")"
  "$kbisect" --db "$db" $command "$newest" >"$work/newest.out"
  [[ -s $work/last.out ]] && cmp -s "$work/last.out" "$work/newest.out" ||
    fail "$command last is not $command $newest: $(diff "$work/last.out" "$work/newest.out")"
done

# A mistyped command is named, with the one that was meant.
"$kbisect" --db "$db" reprot 1 2>"$work/typo.err" && fail "kbisect reprot ran"
grep -q "^kbisect: error: unknown command 'reprot' (did you mean 'report'?); the commands: " \
  "$work/typo.err" || fail "kbisect reprot: $(cat "$work/typo.err")"
# The commands that only read results refuse a database that is not there, and make none.
for command in "log 1" "query sessions" "report last"; do
  "$kbisect" --db "$work/missing.db" $command >/dev/null 2>"$work/missing.err" &&
    fail "$command on a missing database succeeded"
  grep -q "no results database at $work/missing.db" "$work/missing.err" ||
    fail "$command on a missing database: $(cat "$work/missing.err")"
done
[[ ! -e $work/missing.db ]] || fail "a command that only reads created $work/missing.db"

# A bisection its scenario cannot run (a sim change that names no candidate, said at its
# FILE:LINE; a variant the workload does not have, found before any kernel is built; a variant
# for the sim runner, which runs no workload) fails and stores no session.
sessions=$(sqlite3 "$db" "select count(*) from sessions")
sed -e 's/^name: sim-cli/name: sim-no-such-change/' -e 's/"change 27"/"no such subject"/' \
  "$work/sim.yaml" >"$work/no-change.yaml"
printf '[read]\nrw=randread\nsize=16m\n' >"$work/read.fio"
printf 'name: no-variant\nkernel: {repo: %s}\nvm: {runner: qemu}\nworkload: {jobs: [read.fio]}\n%s\n' \
  "$work/repo" "metrics: [{name: read.iops, better: higher}]" >"$work/no-variant.yaml"
for args in "-c $work/no-change.yaml" "-c $work/no-variant.yaml --variant nope" \
  "-c $work/sim.yaml --variant nope"; do
  # shellcheck disable=SC2086 # $args is the word list it reads as
  "$kbisect" --db "$db" bisect $args --good "$good" --bad "$bad" 2>"$work/cannot.err" &&
    fail "bisect $args ran"
  grep -q "no-change.yaml:[0-9]*:[0-9]*: sim.changes\[0\].commit: 'no such subject' is not among the candidate commits\|has no variant 'nope'\|--variant nope: runner: sim draws its samples from a model" "$work/cannot.err" ||
    fail "bisect $args: $(cat "$work/cannot.err")"
done
[[ $(sqlite3 "$db" "select count(*) from sessions") == "$sessions" ]] ||
  fail "a bisection its scenario cannot run stored a session"
# A device that cannot be passed through is refused before anything is checked out or built
# (this repository is no kernel tree: a checkout would fail on that first).
sed -e 's/^name: no-variant/name: no-device/' "$work/no-variant.yaml" >"$work/no-device.yaml"
printf 'device: {kind: nvme-passthrough, pci: "0000:99:00.0"}\n' >>"$work/no-device.yaml"
"$kbisect" --db "$db" run -c "$work/no-device.yaml" --commit "$bad" 2>"$work/device.err" &&
  fail "run with no such PCI device ran"
grep -q "^kbisect: error: no PCI device 0000:99:00.0 on this host" "$work/device.err" ||
  fail "run with no such PCI device: $(cat "$work/device.err")"
# A command that fails before it stores anything (a mistyped ref; run, which measures nothing
# under runner: sim) leaves no database nor its directory behind, and a database that cannot be
# made stops a run before anything is checked out or built (this repository is no kernel tree:
# a checkout would fail on that first). Without --db the default's directory is made.
for command in "bisect --good nonexist --bad $bad" "run --commit $bad --git-bisect-run"; do
  # shellcheck disable=SC2086 # $command is the word list it reads as
  "$kbisect" --db "$work/typo/a/b/x.db" $command -c "$work/sim.yaml" 2>/dev/null &&
    fail "$command ran"
  [[ ! -e $work/typo ]] || fail "$command failed and left $(find "$work/typo")"
done
"$kbisect" --db /proc/kbisect-nowhere/x.db run -c "$work/no-variant.yaml" --commit "$bad" \
  2>"$work/nodb.err" && fail "run with a database in /proc ran"
grep -q "^kbisect: error: cannot create the directory of database /proc/kbisect-nowhere/x.db" \
  "$work/nodb.err" || fail "run with a database in /proc: $(cat "$work/nodb.err")"
mkdir "$work/fresh"
(cd "$work/fresh" && "$kbisect" --quiet bisect -c "$work/sim.yaml" --good "$good" --bad "$bad" >/dev/null)
[[ -s $work/fresh/results/kbisect.db ]] || fail "no results/kbisect.db made by default"
# The commands that boot kernels refuse runner: sim before they make their workdir.
mkdir "$work/no-workdir"
for command in "run --commit $bad" "compare --a $good --b $bad" "revert-check --base $bad --revert $planted"; do
  # shellcheck disable=SC2086 # $command is the word list it reads as
  (cd "$work/no-workdir" && "$kbisect" --db "$work/no-workdir.db" $command -c "$work/sim.yaml" \
    2>"$work/no-workdir.err") && fail "$command under runner: sim ran"
  grep -q "runner: sim measures no kernel" "$work/no-workdir.err" ||
    fail "$command under runner: sim: $(cat "$work/no-workdir.err")"
  [[ -z $(ls -A "$work/no-workdir") ]] || fail "$command under runner: sim left $(ls -A "$work/no-workdir")"
done
# The default workload (no --variant, no @VARIANT) of a scenario with variants has its job files
# checked too, once a command chooses it: here only the variant sets SIZE. Naming the variant
# gets past the check (to the checkout, which fails: this repository is no kernel tree).
printf '[read]\nrw=randread\nsize=${SIZE}\n' >"$work/sized.fio"
sed -e 's/^name: no-variant/name: default-unset/' \
  -e 's/jobs: \[read.fio\]}/jobs: [sized.fio], variants: [{name: short, vars: {SIZE: 16m}}]}/' \
  "$work/no-variant.yaml" >"$work/default-unset.yaml"
sessions=$(sqlite3 "$db" "select count(*) from sessions")
for command in "run --commit $bad" "compare --a $good@short --b $bad" \
  "bisect --good $good --bad $bad"; do
  # shellcheck disable=SC2086 # $command is the word list it reads as
  "$kbisect" --db "$db" $command -c "$work/default-unset.yaml" 2>"$work/unset.err" &&
    fail "$command with SIZE unset ran"
  grep -q "^kbisect: error: $work/sized.fio:3: \${SIZE} is not set; give it under workload.vars" \
    "$work/unset.err" || fail "$command with SIZE unset: $(cat "$work/unset.err")"
done
[[ $(sqlite3 "$db" "select count(*) from sessions") == "$sessions" ]] ||
  fail "a command whose default workload does not parse stored a session"
"$kbisect" --db "$db" run -c "$work/default-unset.yaml" --commit "$bad" --variant short \
  2>"$work/short.err" && fail "run on a repository that is no kernel tree ran"
if grep -q "is not set" "$work/short.err"; then fail "--variant short: $(cat "$work/short.err")"; fi
# A workdir that cannot be made stops a comparison before it stores anything; one that fails
# half-way (here: its work tree cannot be made, a file is in the way) ends its session as
# aborted with the reason; it is not left running.
sessions=$(sqlite3 "$db" "select count(*) from sessions")
"$kbisect" --db "$db" --workdir /proc/kbisect-nowhere compare -c "$work/no-variant.yaml" \
  --a "$good" --b "$bad" 2>"$work/compare.err" && fail "compare in /proc ran"
grep -q "^kbisect: error: cannot create /proc/kbisect-nowhere" "$work/compare.err" ||
  fail "compare in /proc: $(cat "$work/compare.err")"
[[ $(sqlite3 "$db" "select count(*) from sessions") == "$sessions" ]] ||
  fail "a comparison without a workdir stored a session"
# A comparison does not resume: one left "running" by a process killed outright (made here as
# kill -9 leaves it, with and without its lock) is ended as aborted by the next comparison,
# unless a live process (here a stand-in, `sleep`) holds its lock.
for killed in 1 2; do
  sqlite3 "$db" "insert into sessions (kind, scenario, config_path, config_hash, good_refs,
                   good_commits, bad_ref, bad_commit, strategy, options, status)
                 values ('compare', 'no-variant', 'x.yaml', 'h', '[]', '[]', '', '', '', '{}',
                   'running')"
done
killed=$(sqlite3 "$db" "select max(id) - 1 from sessions") measuring=$(sqlite3 "$db" "select max(id) from sessions")
sleep 60 &
holder=$!
sqlite3 "$db" "insert into locks (name, pid, host) values
                 ('comparison:$killed', 2147483646, '$(hostname)'),
                 ('comparison:$measuring', $holder, '$(hostname)')"
mkdir -p "$work/blocked" && touch "$work/blocked/src"
"$kbisect" --db "$db" --workdir "$work/blocked" compare -c "$work/no-variant.yaml" \
  --a "$good" --b "$bad" 2>"$work/compare.err" && fail "compare without a work tree ran"
kill "$holder" && wait "$holder" 2>/dev/null || true
[[ $(sqlite3 "$db" "select status || ' ' || json_extract(result, '$.message') from sessions
                    where id = $killed") == "aborted its process was gone before it finished"* &&
   $(sqlite3 "$db" "select status from sessions where id = $measuring") == running ]] ||
  fail "killed comparisons: $(sqlite3 "$db" "select * from sessions where id >= $killed")"
[[ $(sqlite3 "$db" "select name from locks") == "comparison:$measuring" ]] ||
  fail "locks after a comparison: $(sqlite3 "$db" "select * from locks")"
[[ $(sqlite3 "$db" "select status || ' ' || json_extract(result, '$.message') from sessions
                    order by id desc limit 1") == "aborted cannot create $work/blocked/src"* ]] ||
  fail "a failed comparison's session: $(sqlite3 "$db" "select * from sessions order by id desc limit 1")"
# A revert-check's session names the reverted commits by id, however they were asked for: the
# command to make it again must not depend on where HEAD is.
"$kbisect" --db "$db" --workdir "$work/blocked" revert-check -c "$work/no-variant.yaml" \
  --base "$bad" --revert HEAD,HEAD~1 2>/dev/null && fail "revert-check without a work tree ran"
session=$(sqlite3 "$db" "select max(id) from sessions")
"$kbisect" --db "$db" report "$session" >"$work/revert-report.out" 2>&1 || true
grep -q -- "--revert $(git rev-parse --short=12 HEAD),$(git rev-parse --short=12 HEAD~1)" \
  "$work/revert-report.out" || fail "revert-check's command: $(cat "$work/revert-report.out")"

set +e
"$kbisect" --db "$db" run -c "$work/sim.yaml" --commit "$bad" --git-bisect-run 2>"$work/run.err"
status=$?
set -e
[[ $status -eq 128 ]] || fail "--git-bisect-run error exit $status, want 128: $(cat "$work/run.err")"
# Outside a git bisect it says so before anything is checked out or built (this repository is
# no kernel tree: a checkout would fail on that first).
set +e
"$kbisect" --db "$db" run -c "$work/no-variant.yaml" --commit "$bad" --git-bisect-run \
  2>"$work/run.err"
status=$?
set -e
[[ $status -eq 128 ]] && grep -q "no git bisect in progress in $work/repo" "$work/run.err" ||
  fail "--git-bisect-run outside a bisect: exit $status: $(cat "$work/run.err")"
# A git bisect with its own terms (--term-new/--term-old) is one in progress: this run goes on
# to the checkout, where this repository, no kernel tree, stops it.
git bisect start --term-old=fast --term-new=slow "$bad" "$good" >/dev/null
set +e
(cd "$work/repo" && "$kbisect" --db "$db" run -c "$work/no-variant.yaml" --commit HEAD \
  --git-bisect-run 2>"$work/run.err")
status=$?
set -e
git bisect reset >/dev/null 2>&1
[[ $status -eq 128 ]] && grep -q "is not a kernel source tree" "$work/run.err" ||
  fail "--git-bisect-run with terms: exit $status: $(cat "$work/run.err")"
# A mistyped option: git bisect run would take CLI11's own exit codes (105-109) for bad.
set +e
"$kbisect" --db "$db" run -c "$work/sim.yaml" --commit "$bad" --git-bisect-run --sample 5 \
  2>"$work/run.err"
status=$?
"$kbisect" --db "$db" bisect -c "$work/sim.yaml" --good "$good" --bad "$bad" --no-such-option \
  2>"$work/bisect.err"
bisect_status=$?
set -e
[[ $status -eq 128 ]] || fail "--git-bisect-run with a mistyped option: exit $status, want 128"
[[ $bisect_status -eq 1 ]] && grep -q "no-such-option" "$work/bisect.err" ||
  fail "a usage error: exit $bisect_status, want 1: $(cat "$work/bisect.err")"
# With --json a usage error too ends with the aborted result object, as the contract says.
set +e
"$kbisect" --db "$db" --json bisect -c "$work/sim.yaml" --good "$good" --bad "$bad" --strategy nope \
  >"$work/usage.out" 2>/dev/null
set -e
tail -n 1 "$work/usage.out" | grep -q '"message":"--strategy: nope not in .*"verdict":"aborted"' ||
  fail "--json with a usage error: $(cat "$work/usage.out")"
# A --confidence the strategy cannot use is a usage error before any session is stored.
for options in "--confidence 0.5" "--confidence 1" "--strategy classic --confidence 0.9"; do
  set +e
  # shellcheck disable=SC2086
  "$kbisect" --db "$work/confidence.db" bisect -c "$work/sim.yaml" --good "$good" --bad "$bad" \
    $options 2>"$work/confidence.err"
  status=$?
  set -e
  [[ $status -eq 1 ]] && grep -q -- "--confidence" "$work/confidence.err" ||
    fail "$options: exit $status, want 1: $(cat "$work/confidence.err")"
  [[ ! -e $work/confidence.db ]] || fail "$options: stored $(sqlite3 "$work/confidence.db" "select * from sessions")"
done
echo "PASS"
