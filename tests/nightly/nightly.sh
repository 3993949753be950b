#!/usr/bin/env bash
# kbisect nightly through the CLI on a real git history (an "upstream" repository and a clone
# that fetches from it), a real SQLite file and the simulated runner (runner: sim measures
# nothing; it exists for tests like this one):
#   - a tip that did not regress becomes the baseline (exit 0); with nothing new, exit 0 again
#   - a tip that regressed is bisected to the planted commit (exit 2), the baseline stays
#   - a second nightly while one holds the lock refuses to start (exit 4)
#   - the lock of a killed nightly is taken over, and said so
#   - Ctrl-C releases the lock (exit 130); stopped mid-bisection, it names the bisect session
#     it leaves, and the next nightly resumes that
#   - a regression whose culprit cannot be built is reported as incomplete (exit 3), and a tip
#     that cannot be built is an error that says to wait for the branch (exit 1)
#   - a config without nightly: is an error (exit 1)
#   - a nightly that fails before it has a tip and a baseline (a remote that does not exist, a
#     --baseline that does not resolve) is an aborted nightly session with its message (exit 1)
# A nightly is held in its `git fetch` for the concurrency cases: the clone fetches through
# gated-upload-pack, which waits while the file `hold` exists (for a bounded time).
#   nightly.sh KBISECT WORK_DIR
set -euo pipefail
kbisect=$1 work=$2
rm -rf "$work" && mkdir -p "$work/upstream"
fail() { echo "FAIL: $*"; exit 1; }
upstream() { command git -C "$work/upstream" -c user.name=t -c user.email=t@example.com "$@"; }
# Fixed identities and dates: the same commit ids on every run, so the simulated samples
# (drawn per commit id) and with them every verdict are the same on every run.
commit_range() {
  for i in $(seq "$1" "$2"); do
    echo "$i" >"$work/upstream/file"
    upstream add file
    local date="2020-01-01T00:$((i / 60)):$((i % 60))"
    GIT_AUTHOR_DATE=$date GIT_COMMITTER_DATE=$date upstream commit -qm "change $i"
  done
}
upstream init -q -b master
commit_range 0 10
first=$(upstream rev-parse HEAD~10) tip10=$(upstream rev-parse HEAD)
git clone -q "$work/upstream" "$work/kernel"

cat >"$work/gated-upload-pack" <<'SH'
#!/bin/sh
# Stands in for git-upload-pack on the upstream side of `git fetch`: waits while `hold`
# exists next to this script (at most 60 s), then serves the fetch.
dir=$(dirname "$0")
n=0
while [ -e "$dir/hold" ] && [ $n -lt 600 ]; do sleep 0.1; n=$((n + 1)); done
exec git-upload-pack "$@"
SH
chmod +x "$work/gated-upload-pack"
git -C "$work/kernel" config remote.origin.uploadpack "$work/gated-upload-pack"

db="$work/nightly results.db"  # a space: commands printed for it must quote it
write_config() {  # write_config NAME EXTRA_SIM_YAML
  cat >"$work/$1.yaml" <<YAML
name: $1
kernel: {repo: $work/kernel}
vm: {runner: sim}
metrics: [{name: read.iops, better: higher}]
bisect: {min_samples: 3, max_samples: 5}
nightly: {branch: master, remote: origin, baseline: $first}
sim:
  seed: 7
  noise: {dist: lognormal, cv: 5%}
$2
YAML
}
nightly() {  # nightly CONFIG_NAME ARGS...: runs it, leaves stdout, stderr and the exit status
  local name=$1
  shift
  set +e
  "$kbisect" --db "$db" nightly -c "$work/$name.yaml" "$@" >"$work/out" 2>"$work/err"
  status=$?
  set -e
}
query() { "$kbisect" --db "$db" query --format csv "$1" | tr -d '\r' | tail -n +2; }
wait_for_lock() {  # prints the pid that holds the lock once there is one
  for _ in $(seq 600); do
    holder=$(query "select pid from locks")
    if [[ -n $holder ]]; then echo "$holder"; return 0; fi
    sleep 0.1
  done
  fail "no nightly took the lock"
}
# Prints the pid of a child process of $1 that leads a process group of its own, once there is
# one. The child moves into its group after the fork: found before, it would have none to kill.
group_leader_child_of() {
  for _ in $(seq 600); do
    for stat in /proc/[0-9]*/stat; do
      read -r line 2>/dev/null <"$stat" || continue  # no fork per process
      read -r -a fields <<<"${line##*) }"  # state, ppid, pgrp, ... after "pid (comm) "
      local pid=${stat//[^0-9]/}
      if [[ ${fields[1]} == "$1" && ${fields[2]} == "$pid" ]]; then echo "$pid"; return 0; fi
    done
    sleep 0.1
  done
  fail "process $1 started no child in a process group of its own"
}
expect_status() { [[ $status -eq $1 ]] || fail "$2: exit $status, want $1; stdout: $(cat "$work/out"); stderr: $(cat "$work/err")"; }

# 1. No regression yet: the tip (change 10) is compared with nightly.baseline (change 0) and
#    becomes the stored baseline.
write_config sim-nightly "  changes: []"
nightly sim-nightly --json
expect_status 0 "tip without a regression"
result=$(tail -n 1 "$work/out")
grep -q '"verdict":"no-change"' <<<"$result" || fail "verdict: $result"
grep -q "\"new_baseline\":{\"commit\":\"$tip10\"" <<<"$result" || fail "new baseline: $result"
grep -q '"verdict":"no-regression"' <<<"$result" || fail "bisect verdict: $result"
[[ $(query "select commit_id from baselines where scenario = 'sim-nightly'") == "$tip10" ]] ||
  fail "stored baseline is not the tip $tip10"
[[ $(query "select count(*) from locks") == 0 ]] || fail "the lock was not released"

nightly sim-nightly
expect_status 0 "nothing new"
grep -q "no new commits since the baseline" "$work/out" || fail "nothing new: $(cat "$work/out")"
# The same comparison again, as text: no regression is what a nightly hopes for, and bisect's
# advice for it ("check that the good and bad commits are right") is not said.
nightly sim-nightly --baseline "$first"
expect_status 0 "the first comparison again"
grep -q "^good and bad do not differ by the floor: at most [0-9.]*% worse at 99%: read.iops median" \
  "$work/out" &&
  ! grep -q "check that the good and bad commits are right" "$work/out" ||
  fail "a nightly with no regression: $(cat "$work/out")"

# 2. Upstream gains 30 commits and "change 27" makes reads 15% slower: the nightly fetches,
#    finds the regression against the stored baseline and bisects it to change 27.
commit_range 11 40
tip40=$(upstream rev-parse HEAD) planted=$(upstream rev-parse HEAD~13)
write_config sim-nightly '  changes: [{commit: "change 27", factor: 0.7}]'
nightly sim-nightly
expect_status 2 "regressed tip"
grep -q "^regression: culprit $planted change 27" "$work/out" || fail "culprit: $(cat "$work/out")"
session=$(query "select id from sessions where kind = 'bisect' and bad_commit = '$tip40'")
[[ -n $session ]] || fail "no bisect session between the baseline and $tip40"
grep -qx "report: kbisect --db '$db' report $session" "$work/out" || fail "report line: $(cat "$work/out")"
[[ $(query "select json_extract(good_commits, '\$[0]') from sessions where id = $session") == "$tip10" ]] ||
  fail "the bisection did not start at the stored baseline $tip10"
[[ $(query "select commit_id from baselines where scenario = 'sim-nightly'") == "$tip10" ]] ||
  fail "a regressed tip moved the baseline"
[[ $(query "select status from sessions where kind = 'nightly' order by id desc limit 1") == done ]] ||
  fail "the nightly session is not done"
# The nightly's own report is its bisection's, under what the nightly decided.
nightly_session=$(query "select id from sessions where kind = 'nightly' order by id desc limit 1")
"$kbisect" --db "$db" report "$nightly_session" >"$work/report.out"
head -n 1 "$work/report.out" | grep -qx "nightly $nightly_session: regression-bisected: tip $tip40 of master against baseline $tip10; its bisection, session $session:" &&
  grep -q "^commit: *$planted (change 27)" "$work/report.out" ||
  fail "the nightly's report: $(head -n 5 "$work/report.out")"
# Its log is its bisection's too.
[[ $("$kbisect" --db "$db" log "$nightly_session") == "# nightly $nightly_session: its bisection, session $session"$'\n'"$("$kbisect" --db "$db" log "$session")" ]] ||
  fail "the nightly's log: $("$kbisect" --db "$db" log "$nightly_session" 2>&1 | head -n 3)"

# 3. A second nightly while the first holds the lock refuses to start.
touch "$work/hold"
"$kbisect" --db "$db" --json nightly -c "$work/sim-nightly.yaml" >"$work/first.out" 2>&1 &
first_pid=$!
[[ $(wait_for_lock) == "$first_pid" ]] || fail "the lock is not held by the first nightly $first_pid"
nightly sim-nightly --json
expect_status 4 "second nightly"
grep -q "another nightly of this scenario is running" "$work/err" || fail "message: $(cat "$work/err")"
grep -q "held by process $first_pid (" "$work/err" || fail "holder: $(cat "$work/err")"
grep -q '"verdict":"busy"' "$work/out" || fail "busy JSON: $(cat "$work/out")"
rm "$work/hold"
set +e
wait "$first_pid"
first_status=$?
set -e
[[ $first_status -eq 2 ]] || fail "the first nightly exit $first_status: $(cat "$work/first.out")"
[[ $(query "select count(*) from locks") == 0 ]] || fail "the first nightly left its lock"

# 4. A nightly killed while it holds the lock leaves it behind; the next one takes it over.
#    Its git fetch (a process group of its own) is killed too, as a crash of the whole job
#    would: left running, it could still be updating the ref when the next nightly fetches.
touch "$work/hold"
"$kbisect" --db "$db" nightly -c "$work/sim-nightly.yaml" >/dev/null 2>&1 &
killed_pid=$!
[[ $(wait_for_lock) == "$killed_pid" ]] || fail "the lock is not held by $killed_pid"
fetch_pid=$(group_leader_child_of "$killed_pid")
kill -KILL "$killed_pid"
kill -KILL -- "-$fetch_pid"
{ wait "$killed_pid"; } 2>/dev/null || true  # bash would say "Killed"
rm "$work/hold"
[[ $(query "select pid from locks") == "$killed_pid" ]] || fail "the killed nightly's lock is gone"
nightly sim-nightly
expect_status 2 "nightly after a killed one"
grep -q "took over lock 'nightly:sim-nightly' from process $killed_pid on " "$work/err" ||
  fail "no word of the takeover: $(cat "$work/err")"
[[ $(query "select count(*) from locks") == 0 ]] || fail "the lock was not released"

# 4b. A nightly killed outright after it stored its session leaves that session "running"
#     (made here as kill -9 would leave it: a sim nightly is over too soon to be caught in the
#     act). The next nightly of the scenario marks it aborted.
sqlite3 "$db" "insert into sessions (kind, scenario, config_path, config_hash, good_refs,
                 good_commits, bad_ref, bad_commit, strategy, options, status)
               select kind, scenario, config_path, config_hash, good_refs, good_commits, bad_ref,
                 bad_commit, strategy, options, 'running'
               from sessions where kind = 'nightly' and scenario = 'sim-nightly'
               order by id desc limit 1"
killed_session=$(query "select max(id) from sessions")
running="select id from sessions where kind = 'nightly' and status = 'running'"
[[ $(query "$running") == "$killed_session" ]] || fail "no killed nightly to clear: $(query "$running")"
nightly sim-nightly
[[ $(query "select status || ' ' || json_extract(result, '$.verdict') from sessions
            where id = $killed_session") == "aborted aborted" ]] ||
  fail "the killed nightly's session: $(query "select status, result from sessions where id = $killed_session")"
[[ -z $(query "$running") ]] || fail "a nightly is still running: $(query "$running")"

# 4c. --json: a usage error too ends with the aborted result object.
nightly sim-nightly --json --baseline
expect_status 1 "nightly --json with a usage error"
tail -n 1 "$work/out" | grep -q '"exit_code":1,.*"verdict":"aborted"' ||
  fail "nightly --json with a usage error: $(cat "$work/out")"

# 5. Ctrl-C (here during the fetch) stops the nightly and releases the lock.
touch "$work/hold"
"$kbisect" --db "$db" --json nightly -c "$work/sim-nightly.yaml" >"$work/interrupted.out" \
  2>"$work/interrupted.err" &
interrupted_pid=$!
[[ $(wait_for_lock) == "$interrupted_pid" ]] || fail "the lock is not held by $interrupted_pid"
kill -INT "$interrupted_pid"
set +e
wait "$interrupted_pid"
interrupted_status=$?
set -e
rm "$work/hold"
[[ $interrupted_status -eq 130 ]] || fail "interrupted exit $interrupted_status: $(cat "$work/interrupted.err")"
# --json output ends with the nightly's result, also when it stopped.
tail -n 1 "$work/interrupted.out" | grep -q '"exit_code":130,.*"verdict":"aborted"' ||
  fail "--json after Ctrl-C ends with: $(tail -n 1 "$work/interrupted.out")"
[[ $(query "select count(*) from locks") == 0 ]] || fail "Ctrl-C left the lock"

# 5b. Ctrl-C during the bisection (on a database of its own, tried until one lands there):
#     the result names the bisect session it leaves, which the next nightly resumes.
ctrlc_db=$work/ctrlc.db
journaled_samples() {  # journaled_samples DB
  local value
  value=$(sqlite3 "file:$1?mode=ro" "select count(*) from journal where kind = 'sample'" \
    2>/dev/null) || true
  echo "${value:-0}"
}
# signal_mid_bisection SIGNAL DB OUT: runs a --json nightly on a new DB (stdout in OUT.out,
# stderr in OUT.err) and sends it SIGNAL once its bisection has journaled 15 samples, until one
# lands there (the nightly ends by that signal), at most 50 times; leaves status its exit code.
signal_mid_bisection() {
  local signal=$1 database=$2 out=$3 pid
  for attempt in $(seq 1 50); do
    rm -f "$database"*
    "$kbisect" --db "$database" --json nightly -c "$work/sim-nightly.yaml" >"$out.out" \
      2>"$out.err" &
    pid=$!
    while kill -0 "$pid" 2>/dev/null && (($(journaled_samples "$database") < 15)); do
      sleep 0.01
    done
    kill "-$signal" "$pid" 2>/dev/null || true
    status=0 && wait "$pid" 2>/dev/null || status=$?
    ((status == 128 + $(kill -l "$signal"))) && return 0
  done
  fail "no SIG$signal landed mid-bisection in 50 attempts"
}
signal_mid_bisection INT "$ctrlc_db" "$work/ctrlc"
stopped=$(sqlite3 "$ctrlc_db" "select id from sessions where kind = 'bisect' and status = 'running'")
[[ -n $stopped ]] || fail "Ctrl-C mid-bisection left no resumable bisect session"
tail -n 1 "$work/ctrlc.out" |
  grep -q "\"bisect\":{\"confirmed\":false,\"culprit\":null,\"message\":\"interrupted by SIGINT; everything started was stopped\",\"samples\":[1-9][0-9]*,\"session\":$stopped,.*\"bisect_session\":$stopped," ||
  fail "--json after Ctrl-C mid-bisection ends with: $(tail -n 1 "$work/ctrlc.out")"
[[ $(sqlite3 "$ctrlc_db" "select status || ' ' || json_extract(result, '$.verdict') || ' ' ||
                            json_extract(result, '$.exit_code') from sessions
                          where kind = 'nightly'") == "aborted aborted 130" ]] ||
  fail "the stopped nightly's stored result: $(sqlite3 "$ctrlc_db" "select result from sessions where kind = 'nightly'")"
set +e
"$kbisect" --db "$ctrlc_db" --json nightly -c "$work/sim-nightly.yaml" >"$work/out" 2>"$work/err"
status=$?
set -e
expect_status 2 "the nightly after one stopped mid-bisection"
grep -qx "{\"event\":\"resume\",\"session\":$stopped,\"text\":\"resuming session $stopped\"}" "$work/out" &&
  tail -n 1 "$work/out" | grep -q "\"bisect_session\":$stopped,\"branch\":\"master\",\"culprit\":\"$planted\"" ||
  fail "the nightly after one stopped mid-bisection: $(cat "$work/out" "$work/err")"

# 5c. A nightly killed outright mid-bisection names its bisection all the same: its log follows
#     there, before and after the next nightly marks it aborted.
killed_db=$work/killed.db
signal_mid_bisection KILL "$killed_db" "$work/killed"
killed_nightly=$(sqlite3 "$killed_db" "select id from sessions where kind = 'nightly'")
bisection=$(sqlite3 "$killed_db" "select id from sessions where kind = 'bisect'")
linked() {
  sqlite3 "$killed_db" "select status || ' ' || json_extract(result, '$.bisect_session')
                        from sessions where id = $killed_nightly"
}
[[ -n $bisection && $(linked) == "running $bisection" ]] ||
  fail "a nightly killed mid-bisection does not name it: $(linked), bisection $bisection"
"$kbisect" --db "$killed_db" log "$killed_nightly" >"$work/killed.log" ||
  fail "log of a nightly killed mid-bisection: $(cat "$work/killed.log")"
# bisect --resume of the nightly's id names the bisection to resume.
"$kbisect" --db "$killed_db" bisect -c "$work/sim-nightly.yaml" --resume "$killed_nightly" \
  2>"$work/resume.err" && fail "bisect --resume of a nightly's id ran"
grep -qx "kbisect: error: session $killed_nightly is a nightly; its bisection is session $bisection, which --resume $bisection goes on with" \
  "$work/resume.err" || fail "bisect --resume of a nightly's id: $(cat "$work/resume.err")"
"$kbisect" --db "$killed_db" nightly -c "$work/sim-nightly.yaml" >/dev/null 2>&1 || true
[[ $(linked) == "aborted $bisection" ]] ||
  fail "the killed nightly, once marked aborted, does not name its bisection: $(linked)"

# 6. Another scenario, same history: the culprit does not build, so the regression is found
#    but the bisection can only narrow it down (exit 3). Its own lock and baseline.
write_config sim-nightly-skips '  changes: [{commit: "change 27", factor: 0.7}]
  outcomes: [{commit: "change 27", outcome: build-failed}]'
nightly sim-nightly-skips --baseline "$tip10" --json
expect_status 3 "regression with an unbuildable culprit"
result=$(tail -n 1 "$work/out")
grep -q '"verdict":"regression-incomplete"' <<<"$result" || fail "verdict: $result"
grep -q '"verdict":"only-skipped"' <<<"$result" || fail "bisect verdict: $result"
[[ -z $(query "select commit_id from baselines where scenario = 'sim-nightly-skips'") ]] ||
  fail "a regressed tip became a baseline"

# 6b. A tip that does not build: a nightly cannot be given another bad commit, so it says
#     that there is nothing to compare until the branch moves on.
write_config sim-nightly-broken-tip '  outcomes: [{commit: "change 40", outcome: build-failed}]'
nightly sim-nightly-broken-tip --baseline "$tip10"
expect_status 1 "a tip that does not build"
grep -q "the tip $tip40 cannot be measured (build-failed: .*); there is nothing to compare until the branch moves past it" "$work/err" &&
  ! grep -q "give a bad commit" "$work/err" "$work/out" ||
  fail "a tip that does not build: $(cat "$work/out" "$work/err")"

# 7. A scenario without nightly: is an error that says what to add.
grep -v '^nightly:' "$work/sim-nightly.yaml" >"$work/plain.yaml"
nightly plain --json
expect_status 1 "config without nightly:"
grep -q "has no nightly: section; add one" "$work/err" || fail "message: $(cat "$work/err")"
tail -n 1 "$work/out" | grep -q '"exit_code":1,.*"verdict":"aborted"' ||
  fail "--json without nightly: ends with: $(tail -n 1 "$work/out")"

# 8. A nightly that fails every night before it compares anything leaves a session each time,
#    aborted with the message, for `kbisect query sessions` and `report last` to show.
sed 's/remote: origin/remote: no-such-remote/' "$work/sim-nightly.yaml" >"$work/no-remote.yaml"
nightly no-remote
expect_status 1 "a remote that does not exist"
failed=$(query "select id from sessions where kind = 'nightly' order by id desc limit 1")
[[ $(query "select status, json_extract(result, '$.verdict') from sessions
            where id = $failed") == "aborted,aborted" ]] ||
  fail "a failed fetch stored no aborted session: $(query "select * from sessions where id = $failed")"
said=$("$kbisect" --db "$db" report last)
grep -q "message: *cannot fetch branch master from remote no-such-remote" <<<"$said" &&
  grep -q "verdict: *aborted" <<<"$said" ||
  fail "report last does not show the failed fetch: $said"
said=$("$kbisect" --db "$db" log "$failed" 2>&1) && fail "log of a nightly without a bisection succeeded"
grep -q "session $failed is a nightly with no bisection on record" <<<"$said" ||
  fail "log of a nightly without a bisection: $said"
nightly sim-nightly --baseline no-such-ref
expect_status 1 "a --baseline that does not resolve"
[[ $(query "select count(*) from sessions where status = 'aborted' and id > $failed
            and json_extract(result, '$.message') like '%unknown revision ''no-such-ref''%'") == 1 ]] ||
  fail "an unresolvable --baseline stored no aborted session"
[[ $(query "select count(*) from locks") == 0 ]] || fail "a failed start kept the lock"

# 9. The stored baseline is the scenario's whatever the order of its metrics; one that a
#    history rewrite took away says to give --baseline.
sed -e 's/^metrics: .*/metrics: [{name: read.clat_ns.mean, better: lower}, {name: read.iops, better: higher}]/' \
  -e 's/, baseline: [0-9a-f]*}/}/' "$work/sim-nightly.yaml" >"$work/reordered.yaml"
sed -i 's/^name: .*/name: sim-nightly/' "$work/reordered.yaml"
nightly reordered --json
expect_status 0 "metrics reordered"
grep -q "the stored baseline" "$work/err" "$work/out" ||
  fail "metrics reordered: the stored baseline was not used: $(cat "$work/out" "$work/err")"
db_before=$db db="$work/rewritten.db"
cp "$db_before" "$db"
sqlite3 "$db" "UPDATE baselines SET commit_id = '$(printf '1%.0s' {1..40})'"
nightly sim-nightly
expect_status 1 "a stored baseline that is not in the repository"
grep -q "is not in .* (was its history rewritten?): run once with --baseline REF" "$work/err" ||
  fail "a stored baseline that is not in the repository: $(cat "$work/err")"
db=$db_before

echo "PASS"
