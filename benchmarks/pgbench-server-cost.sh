#!/usr/bin/env bash
# The server's CPU per uncontended cycle on PostgreSQL, the floor's against the provider's plain exclusive lock,
# measured with pgbench (a C client) instead of a JVM on the same cores. Starts its own PostgreSQL on a free port
# (initdb and pg_ctl from `pg_config --bindir`, as the postgres user when run as root), writes the two scripts with
# dev.distlock.benchmarks.jdbc.PgbenchScripts, then runs them in turn: each run empties both tables first and reports
# pgbench's cycles per second and the CPU all of the server's processes used per cycle (/proc, utime+stime of the
# postmaster's children and of those it reaped). Sessions run with enable_seqscan=off, so a plan cached while a table
# looked empty cannot scan it (docs/JDBC.md, "The planner and a churning table").
#
# usage: benchmarks/pgbench-server-cost.sh <directory with benchmarks.jar and lib/> [rounds=3] [seconds=8] [clients=8]
set -euo pipefail
bench=$(cd "$1" && pwd); rounds=${2:-3}; seconds=${3:-8}; clients=${4:-8}
. "$(dirname "$0")/pgbench-postgres.sh"
as_pg "$bin/pg_ctl" -D "$dir/data" -l "$dir/log" -w -o "$server_options" start > /dev/null
trap 'as_pg "$bin/pg_ctl" -D "$dir/data" -m immediate stop > /dev/null; rm -rf "$dir"' EXIT
write_scripts
psql() { command psql -q -h 127.0.0.1 -p "$port" -U distlock -d postgres "$@"; }
postmaster=$(head -1 "$dir/data/postmaster.pid")
ticks() { # utime, stime, cutime, cstime of the postmaster and its children
	local total=0 p
	for p in $postmaster $(pgrep -P "$postmaster"); do
		read -r -a f < <(cut -d' ' -f14-17 "/proc/$p/stat" 2>/dev/null || echo 0 0 0 0)
		total=$((total + f[0] + f[1] + f[2] + f[3]))
	done
	echo $total
}
hz=$(getconf CLK_TCK)
for round in $(seq 1 "$rounds"); do
	for script in floor distlock; do
		psql -c "TRUNCATE bench_floor, distributed_locks, distributed_locks_ids"
		sleep 1 # the postmaster reaps psql's backend, and counts its CPU, before the first reading
		before=$(ticks)
		out=$(PGOPTIONS="-c enable_seqscan=off" "$bin/pgbench" -n -M prepared -h 127.0.0.1 -p "$port" -U distlock \
			-c "$clients" -j 2 -T "$seconds" -f "$dir/$script.pgb" postgres 2>&1)
		sleep 1 # and pgbench's backends before the second
		after=$(ticks)
		cycles=$(echo "$out" | sed -n 's/^number of transactions actually processed: \([0-9]*\).*/\1/p')
		tps=$(echo "$out" | sed -n 's/^tps = \([0-9.]*\).*/\1/p')
		awk -v r="$round" -v s="$script" -v t="$tps" -v c="$cycles" -v d=$((after - before)) -v hz="$hz" \
			'BEGIN { printf "round %d %-9s %9.0f cycles/s %7.1f us of server CPU per cycle\n", r, s, t, d * 1e6 / hz / c }'
	done
done
