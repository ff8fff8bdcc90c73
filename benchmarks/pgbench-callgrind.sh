#!/usr/bin/env bash
# The server's work per uncontended cycle on PostgreSQL as a count of instructions, the floor's against the provider's
# plain exclusive lock: exact and repeatable whatever else the machine does, where timings on a shared 2-core host
# move by a factor of four within a minute (docs/BENCHMARKS.md). Starts its own PostgreSQL on a free port under
# valgrind's callgrind (pgbench-postgres.sh), writes the two scripts with dev.distlock.benchmarks.jdbc.PgbenchScripts
# with every value bound as a parameter, then runs each script through pgbench (one client on one key, its
# statements prepared, each in its own autocommit transaction as the provider sends them) twice, for <short> and for
# <long> cycles, each run on a backend of its own. The backend's instructions over the long run minus those over the
# short, divided by the difference in cycles, are the instructions of one cycle: the connection's start and end, and
# each statement's parse and first plans, cancel out. User space only: the kernel's share (the socket, the WAL
# writes) is not counted, and is the same for both cycles. Further pgbench scripts (variants of a statement, say)
# can be given after the counts and are counted the same way, with the variables :key, :token, :owner, :host and
# :lease; a .sql file among them is run with psql before the counting starts (the table a variant needs, say).
#
# usage: benchmarks/pgbench-callgrind.sh <directory with benchmarks.jar and lib/> [short=500] [long=2500]
#        [script.pgb or setup.sql...]
set -euo pipefail
bench=$(cd "$1" && pwd); short=${2:-500}; long=${3:-2500}; shift $(($# < 3 ? $# : 3))
extra=(); setup=()
for s in "$@"; do
	s="$(cd "$(dirname "$s")" && pwd)/$(basename "$s")"
	if [[ $s == *.sql ]]; then setup+=("$s"); else extra+=("$s"); fi
done
command -v valgrind > /dev/null || { echo "valgrind is not on the PATH" >&2; exit 1; }
. "$(dirname "$0")/pgbench-postgres.sh"
as_pg bash -c "exec valgrind --tool=callgrind --callgrind-out-file='$dir/cg.%p' '$bin/postgres' -D '$dir/data' \
$server_options > '$dir/log' 2>&1" &
trap 'as_pg "$bin/pg_ctl" -D "$dir/data" -m immediate stop > /dev/null 2>&1 || true; sleep 1; rm -rf "$dir"' EXIT
for _ in $(seq 1 120); do "$bin/pg_isready" -q -h 127.0.0.1 -p "$port" && break; sleep 1; done
"$bin/pg_isready" -q -h 127.0.0.1 -p "$port" \
	|| { echo "PostgreSQL did not start under valgrind:" >&2; cat "$dir/log" >&2; exit 1; }
write_scripts bound
for s in "${setup[@]}"; do psql -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$port" -U distlock -d postgres -f "$s"; done
backends() { ls "$dir"/cg.* 2>/dev/null | sort; }
# The instructions of one pgbench run's backend: pgbench opens a first connection of its own before its client's, so
# of the backends that exit during the run, the one that did the most. Each writes its profile as it exits.
count() {
	local before new file total most=0
	before=$(backends)
	PGOPTIONS="-c enable_seqscan=off" "$bin/pgbench" -n -M prepared -h 127.0.0.1 -p "$port" -U distlock -c 1 \
		-D key=bench:key:0 -D token=f3c2a1b0-0000-4000-8000-000000000001 -D owner=bench-owner -D host=bench-host \
		-D lease=10000 \
		-t "$2" -f "$1" postgres > "$dir/pgbench.log" 2>&1 || { cat "$dir/pgbench.log" >&2; exit 1; }
	sleep 2
	new=$(comm -13 <(echo "$before") <(backends))
	for file in $new; do
		for _ in $(seq 1 60); do grep -q '^totals:' "$file" && break; sleep 1; done
		total=$(sed -n 's/^totals: *\([0-9]*\).*/\1/p' "$file")
		[ "${total:-0}" -gt "$most" ] && most=$total
	done
	echo "$most"
}
floor=
for script in "$dir/floor.pgb" "$dir/distlock.pgb" "${extra[@]}"; do
	a=$(count "$script" "$short"); b=$(count "$script" "$long")
	per=$(( (b - a) / (long - short) ))
	[ -z "$floor" ] && floor=$per
	awk -v s="$(basename "$script" .pgb)" -v p="$per" -v f="$floor" \
		'BEGIN { printf "%-24s %9d instructions per cycle %6.3fx the floor'"'"'s\n", s, p, p / f }'
done
